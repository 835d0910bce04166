import { HttpError } from "./errors";

/**
 * The upstream hosts a tenant may point a model base URL at (`AXIOM_UPSTREAM_ALLOW`), so that a
 * tenant cannot make the gateway call addresses inside its network. Entries are `host` or
 * `host:port`, lower-cased; an IPv6 host is written in brackets (`[::1]:8000`).
 */
export type UpstreamAllowList = readonly string[];

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };
const ENTRY = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

/**
 * Parses a comma-separated allow-list; undefined when `raw` lists nothing (every host allowed).
 * Throws a plain `Error` naming the first entry that is neither `host` nor `host:port`.
 */
export function parseUpstreamAllowList(raw: string | undefined): UpstreamAllowList | undefined {
  const entries = (raw ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    const port = ENTRY.exec(entry)?.[1];
    if (!ENTRY.test(entry) || (port !== undefined && (Number(port) < 1 || Number(port) > 65_535))) {
      throw new Error(`"${entry}" is not a host or host:port`);
    }
  }
  return entries.length > 0 ? entries : undefined;
}

/**
 * Refuses an upstream URL (a model's base URL, an MCP server's url: `what`, in messages) the gateway
 * must not call: a scheme other than `http`/`https` (`INVALID_BASE_URL`), or, with an allow-list, a
 * host it does not list (`BASE_URL_NOT_ALLOWED`). A `host` entry allows that host on any port; a
 * `host:port` entry only that port, where a URL without a port has its scheme's (80 or 443). Hosts
 * compare exactly, without wildcards or subdomains, case-insensitively.
 */
export function checkUpstreamUrl(raw: string, allow: UpstreamAllowList | undefined, what = "Base URL"): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError("INVALID_BASE_URL", `${what} "${raw}" is not a URL`);
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) throw new HttpError("INVALID_BASE_URL", `${what} scheme "${url.protocol}" is not allowed; use http or https`);
  if (!allow) return;
  const host = url.hostname.toLowerCase();
  if (!allow.includes(host) && !allow.includes(`${host}:${url.port || defaultPort}`)) {
    throw new HttpError("BASE_URL_NOT_ALLOWED", `${what} host "${url.host}" is not in AXIOM_UPSTREAM_ALLOW`);
  }
}
