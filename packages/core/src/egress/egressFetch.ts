import type { LookupAddress, LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import type { Agent, fetch as UndiciFetch } from "undici";
import { DEFAULT_PORTS, type EgressPolicy, checkEgressAddress, isListedHost, resolveHost } from "./egressPolicy";
import { reachedAddress } from "./addressRanges";
import { EgressRefusedError, findEgressRefusal } from "./egressRefusedError";

// undici's own default for a connection attempt; a connector of our own must restate it.
const CONNECT_TIMEOUT_MS = 10_000;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Every address `hostname` resolves to (of `family`, when the socket wants one), once the policy allows them all. */
async function checkedAddresses(policy: EgressPolicy, hostname: string, family: unknown): Promise<LookupAddress[]> {
  const found = await resolveHost(policy, hostname);
  for (const { address } of found) checkEgressAddress(policy, hostname, address);
  const usable = family === 4 || family === 6 ? found.filter((candidate) => candidate.family === family) : found;
  if (usable.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return usable;
}

/**
 * A socket `lookup` that answers only with addresses the policy allows, refusing the connection when
 * it refuses any: the socket dials exactly the addresses checked, so a name that resolves elsewhere
 * at connect than at write (DNS rebinding) is caught. Honours `all` (Node's autoSelectFamily asks it).
 */
function checkedLookup(policy: EgressPolicy): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: LookupCallback) => {
    checkedAddresses(policy, hostname, options.family).then(
      (found) => (options.all ? callback(null, found) : callback(null, found[0].address, found[0].family)),
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  }) as LookupFunction;
}

/** The `host:port` a connection to `hostname` (as a URL spells it) dials. */
const targetOf = (hostname: string, port: string, protocol: string) => `${hostname}:${Number(port) || DEFAULT_PORTS[protocol] || 0}`;

/** `error`, a refusal of the policy, saying which connection it refused (the lookup that refuses knows no port). */
function refusalAt(error: Error, target: string): Error {
  return error instanceof EgressRefusedError && !error.target ? new EgressRefusedError(error.code, error.message, target) : error;
}

/**
 * An undici dispatcher that checks every connection it opens against `policy`: the host the URL
 * names (an IP literal here, since sockets never look those up) and every address a host name
 * resolves to (in the socket's lookup). Each redirect hop is a connection of its own, so it is
 * checked too.
 */
async function egressDispatcher(policy: EgressPolicy): Promise<Agent> {
  const { Agent, buildConnector } = await loadUndici();
  const direct = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  const checked = buildConnector({ timeout: CONNECT_TIMEOUT_MS, lookup: checkedLookup(policy) });
  return new Agent({
    connect(options, callback) {
      const host = options.hostname;
      const port = Number(options.port) || DEFAULT_PORTS[options.protocol] || 0;
      const target = targetOf(host, options.port, options.protocol);
      const answer: typeof callback = (...args) => (args[0] ? callback(refusalAt(args[0], target), null) : callback(...args));
      try {
        if (isListedHost(policy, host, port)) return direct(options, answer);
        if (!reachedAddress(host)) return checked(options, answer);
        checkEgressAddress(policy, host, host);
      } catch (error) {
        return answer(error as Error, null);
      }
      direct(options, answer);
    },
  });
}

/**
 * The failure of a fetch of `url`, with a refused connection to another target than the URL's own
 * told apart: only a redirect dials elsewhere, so the upstream sent the call where it may not go
 * (`UPSTREAM_REDIRECT_BLOCKED`), which is the upstream's fault, not the URL's.
 */
function redirectRefusalOf(error: unknown, url: URL): unknown {
  const refusal = findEgressRefusal(error);
  if (!refusal?.target || refusal.target === targetOf(url.hostname, url.port, url.protocol)) return error;
  const blocked = new EgressRefusedError("UPSTREAM_REDIRECT_BLOCKED", `${url.origin} redirected to ${refusal.target}, which is refused: ${refusal.message}`, refusal.target);
  return new TypeError("fetch failed", { cause: blocked });
}

// Loaded at the first call, not with the package: most processes (the CLI's commands, replicas
// whose assistants name no base URL) never call a tenant's URL.
let undici: Promise<typeof import("undici")> | undefined;
const loadUndici = () => (undici ??= import("undici"));

const fetches = new WeakMap<EgressPolicy, typeof fetch>();

/**
 * `fetch` held to `policy` on every connection (one dispatcher, and its connection pool, per policy).
 * A refused connection rejects as fetch does for any network failure, with the
 * {@link EgressRefusedError} as its cause: `BASE_URL_NOT_ALLOWED` for the URL's own target,
 * `UPSTREAM_REDIRECT_BLOCKED` for a target a redirect led to.
 */
export function egressFetch(policy: EgressPolicy): typeof fetch {
  let bound = fetches.get(policy);
  if (!bound) {
    let dispatcher: Promise<Agent> | undefined;
    // undici's own fetch, so the dispatcher is of the version it expects.
    bound = (async (input: Parameters<typeof UndiciFetch>[0], init?: Parameters<typeof UndiciFetch>[1]) => {
      const { fetch: undiciFetch } = await loadUndici();
      const url = new URL(typeof input === "object" && "url" in input ? input.url : String(input));
      try {
        return await undiciFetch(input, { ...init, dispatcher: await (dispatcher ??= egressDispatcher(policy)) });
      } catch (error) {
        throw redirectRefusalOf(error, url);
      }
    }) as unknown as typeof fetch;
    fetches.set(policy, bound);
  }
  return bound;
}
