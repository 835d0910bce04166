import ipaddr from "ipaddr.js";

/** An IP address, IPv4 or IPv6. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

// IPv6 ranges that carry an IPv4 address in their last 32 bits and reach it: IPv4-mapped
// (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96).
const TRANSLATED_RANGES = new Set(["ipv4Mapped", "rfc6145", "rfc6052"]);
// IPv4-compatible addresses (::a.b.c.d, deprecated) are "unicast" to ipaddr.js; only :: and ::1 of
// ::/96 are not, and they keep their own meaning.
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * The address a connection to `host` (an IP literal, with or without IPv6 brackets) reaches: an
 * IPv6 address that embeds an IPv4 one is that IPv4 address, so each is classified and matched once.
 * Undefined when `host` is not an IP address.
 */
export function reachedAddress(host: string): IpAddress | undefined {
  const literal = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal) && !ipaddr.IPv6.isValid(literal)) return undefined;
  const address = ipaddr.parse(literal);
  if (address.kind() === "ipv4") return address;
  const ipv6 = address as ipaddr.IPv6;
  const range = ipv6.range();
  if (TRANSLATED_RANGES.has(range) || (range === "unicast" && ipv6.match(IPV4_COMPATIBLE))) {
    return ipaddr.fromByteArray(ipv6.toByteArray().slice(12));
  }
  return ipv6;
}

// The ranges of the operator's own machine and networks, where a local model server lives.
const LOCAL_NETWORK_RANGES = new Set(["loopback", "private", "carrierGradeNat", "uniqueLocal"]);

const RANGE_NAMES: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  carrierGradeNat: "carrier-grade NAT",
  uniqueLocal: "unique-local",
  linkLocal: "link-local",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
};

/**
 * The name of the refused range `address` is in (`loopback`, `link-local`, …), or undefined when it
 * is a public unicast address. Every special-purpose range of ipaddr.js is refused; with
 * `localNetworks`, loopback, private, carrier-grade NAT and unique-local addresses are not.
 */
export function refusedRange(address: IpAddress, localNetworks: boolean): string | undefined {
  const range = address.range();
  if (range === "unicast" || (localNetworks && LOCAL_NETWORK_RANGES.has(range))) return undefined;
  return RANGE_NAMES[range] ?? `reserved (${range})`;
}

/** Whether `address` lies in the CIDR `range` (an IPv4 range never holds an IPv6 address). */
export function inRange(address: IpAddress, range: [IpAddress, number]): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}
