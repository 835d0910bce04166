import ipaddr from "ipaddr.js";
import { type IpAddress, reachedAddress } from "./addressRanges";

/**
 * One entry of `AXIOM_UPSTREAM_ALLOW`: a host name or IP address the URL names (any port, or only
 * `port`), or a CIDR range of addresses (any port) that a URL's IP or resolved addresses lie in.
 */
export type EgressAllowEntry =
  | { kind: "name"; name: string; port?: number }
  | { kind: "address"; address: string; port?: number }
  | { kind: "cidr"; range: [IpAddress, number] };

export type EgressAllowList = readonly EgressAllowEntry[];

// host or host:port, the host a name, a dotted IPv4 address or a bracketed IPv6 one.
const HOST_ENTRY = /^(\[[^\]]+\]|[^:/[\]@?#]+)(?::(\d{1,5}))?$/;

/**
 * Parses a comma-separated allow-list (`api.example.com, 127.0.0.1:11434, 10.0.0.0/8, [fd00::]/8`);
 * undefined when `raw` lists nothing. Hosts are spelled as URLs spell them (lower-case, IPv4 dotted,
 * IPv6 compressed), so an entry matches whatever way a URL writes the same host. Throws a plain
 * `Error` naming the first entry that is not a host, host:port or CIDR.
 */
export function parseEgressAllowList(raw: string | undefined): EgressAllowList | undefined {
  const entries = (raw ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(parseEntry);
  return entries.length > 0 ? entries : undefined;
}

function parseEntry(entry: string): EgressAllowEntry {
  const invalid = new Error(`"${entry}" is not a host, host:port or CIDR`);
  if (entry.includes("/")) {
    try {
      const [address, bits] = ipaddr.parseCIDR(entry.replace(/^\[([^\]]+)\]/, "$1"));
      return { kind: "cidr", range: [reachedAddress(address.toString()) ?? address, bitsOf(address, bits)] };
    } catch {
      throw invalid;
    }
  }
  const match = HOST_ENTRY.exec(entry);
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || (port !== undefined && (port < 1 || port > 65_535))) throw invalid;
  let host: string;
  try {
    host = new URL(`http://${match[1]}`).hostname;
  } catch {
    throw invalid;
  }
  const address = reachedAddress(host);
  return address ? { kind: "address", address: address.toString(), port } : { kind: "name", name: host, port };
}

// An IPv4-mapped range (::ffff:10.0.0.0/104) is matched as the IPv4 range it maps.
function bitsOf(address: IpAddress, bits: number): number {
  return address.kind() === "ipv6" && reachedAddress(address.toString())?.kind() === "ipv4" ? Math.max(0, bits - 96) : bits;
}
