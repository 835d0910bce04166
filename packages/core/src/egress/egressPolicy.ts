import { type LookupAddress, promises as dns } from "node:dns";
import { inRange, reachedAddress, refusedRange } from "./addressRanges";
import type { EgressAllowList } from "./egressAllowList";
import { EgressRefusedError } from "./egressRefusedError";

/** Every address a host name resolves to. */
export type EgressResolver = (hostname: string) => Promise<LookupAddress[]>;

/**
 * Where the gateway may send requests to URLs a tenant names (model base URLs, MCP server urls, …).
 * Public unicast addresses are allowed; loopback, private, link-local (cloud metadata), unique-local,
 * unspecified, multicast, broadcast and reserved ones are refused, in whatever spelling, unless the
 * allow-list names them.
 */
export interface EgressPolicy {
  /** `AXIOM_UPSTREAM_ALLOW`: when set, only what it lists may be called, in any range. */
  readonly allow?: EgressAllowList;
  /**
   * Loopback and private networks (RFC 1918, carrier-grade NAT, unique-local) are allowed unlisted:
   * with authentication off, the one user's own machine and network.
   */
  readonly localNetworks: boolean;
  /** Resolves host names: the system resolver (`dns.lookup`) unless a test injects one. */
  readonly resolve?: EgressResolver;
}

/** With authentication off nothing but the machine's user reaches the gateway: local networks are theirs. */
export function egressPolicyFor({ allow, authRequired }: { allow?: EgressAllowList; authRequired: boolean }): EgressPolicy {
  return { allow, localNetworks: !authRequired };
}

/** The port a URL without one dials. */
export const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

const systemResolver: EgressResolver = (hostname) => dns.lookup(hostname, { all: true });

/** Resolves `hostname` with the policy's resolver. */
export function resolveHost(policy: EgressPolicy, hostname: string): Promise<LookupAddress[]> {
  return (policy.resolve ?? systemResolver)(hostname);
}

/**
 * Whether the allow-list names the URL's `host` (a host name or IP literal, as a URL spells it) with
 * `port`: such a host is allowed whatever it resolves to, since the operator named it.
 */
export function isListedHost(policy: EgressPolicy, host: string, port: number): boolean {
  const address = reachedAddress(host)?.toString();
  return (policy.allow ?? []).some((entry) => {
    if (entry.kind === "cidr" || (entry.port !== undefined && entry.port !== port)) return false;
    return entry.kind === "name" ? entry.name === host.toLowerCase() : entry.address === address;
  });
}

/**
 * Refuses (`BASE_URL_NOT_ALLOWED`) to reach `address`, which `host` is (an IP literal) or resolves
 * to: with an allow-list, an address outside its CIDRs; without one, an address in a refused range
 * unless a CIDR lists it. Call it for a host {@link isListedHost} does not allow.
 */
export function checkEgressAddress(policy: EgressPolicy, host: string, address: string): void {
  const reached = reachedAddress(address);
  if (!reached) throw new EgressRefusedError("BASE_URL_NOT_ALLOWED", `host "${host}" resolves to "${address}", which is not an IP address`);
  if ((policy.allow ?? []).some((entry) => entry.kind === "cidr" && inRange(reached, entry.range))) return;
  const shown = reached.toString();
  const what = reachedAddress(host)?.toString() === shown ? `address ${shown}` : `host "${host}" (address ${shown})`;
  if (policy.allow) throw new EgressRefusedError("BASE_URL_NOT_ALLOWED", `${what} is not in AXIOM_UPSTREAM_ALLOW`);
  const range = refusedRange(reached, policy.localNetworks);
  if (range !== undefined) {
    throw new EgressRefusedError("BASE_URL_NOT_ALLOWED", `${what} is in the ${range} range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it`);
  }
}

/**
 * Refuses a URL a tenant names, when it is written: `INVALID_BASE_URL` when it is not an http(s)
 * URL, `BASE_URL_NOT_ALLOWED` when the policy refuses its host or any address that host resolves to
 * now. A name that does not resolve now is allowed unless an allow-list is set (it cannot be shown to
 * be in a listed range): every connection checks again, on the addresses it dials.
 */
export async function checkEgressUrl(raw: string, policy: EgressPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefusedError("INVALID_BASE_URL", `"${raw}" is not a URL`);
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) throw new EgressRefusedError("INVALID_BASE_URL", `scheme "${url.protocol}" is not allowed; use http or https`);
  const host = url.hostname;
  if (isListedHost(policy, host, Number(url.port) || defaultPort)) return;
  const addresses = reachedAddress(host) ? [host] : (await resolveHost(policy, host).catch(() => [])).map(({ address }) => address);
  if (addresses.length === 0 && policy.allow) throw new EgressRefusedError("BASE_URL_NOT_ALLOWED", `host "${url.host}" is not in AXIOM_UPSTREAM_ALLOW`);
  for (const address of addresses) checkEgressAddress(policy, host, address);
}
