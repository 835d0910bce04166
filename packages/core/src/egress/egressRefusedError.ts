import type { ErrorCode } from "@axiom-lattice/protocols";

/**
 * Why the egress policy refused a URL: not an http(s) URL at all, a target it may not call, or a
 * target it may not call that an allowed upstream redirected to.
 */
export type EgressRefusalCode = Extract<ErrorCode, "INVALID_BASE_URL" | "BASE_URL_NOT_ALLOWED" | "UPSTREAM_REDIRECT_BLOCKED">;

/** The egress policy refused a URL a tenant named (at write) or a connection to it (at a call). */
export class EgressRefusedError extends Error {
  constructor(
    readonly code: EgressRefusalCode,
    message: string,
    /** The refused connection's `host:port`, when a connection was refused. */
    readonly target?: string,
  ) {
    super(message);
    this.name = "EgressRefusedError";
  }
}

/** The {@link EgressRefusedError} `error` is or was caused by (fetch and SDKs wrap it), if any. */
export function findEgressRefusal(error: unknown): EgressRefusedError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof EgressRefusedError) return cause;
  }
  return undefined;
}
