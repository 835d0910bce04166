/** Response header naming the replica that served the request. */
export const REPLICA_HEADER = "x-axiom-replica";

/** Request header a client (or load balancer) sends with the replica it expects to reach. */
export const AGENT_AFFINITY_HEADER = "x-axiom-affinity";

/** Response header echoing a valid {@link AGENT_AFFINITY_HEADER} value back to the client. */
export const AFFINITY_ECHO_HEADER = "x-axiom-affinity-echo";

/** Stable code of an answer telling the client that a peer replica owns the thread's run. */
export const AFFINITY_MISS_CODE = "AFFINITY_MISS";

// Strict on purpose: the value is reflected into a response header.
const AFFINITY_VALUE_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;

/** True when `value` may be echoed back as a header value. */
export function isValidAffinityValue(value: unknown): value is string {
  return typeof value === "string" && AFFINITY_VALUE_PATTERN.test(value);
}

/**
 * Headers to add to a response for the affinity value a request carried: the echo header when the
 * value is valid, nothing otherwise (missing, repeated, too long or with characters outside
 * `[A-Za-z0-9._:@-]`).
 */
export function affinityEchoHeaders(value: string | string[] | undefined): Record<string, string> {
  return isValidAffinityValue(value) ? { [AFFINITY_ECHO_HEADER]: value } : {};
}
