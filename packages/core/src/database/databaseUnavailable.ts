import type { ErrorCode } from "@axiom-lattice/protocols";

const DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE" satisfies ErrorCode;

/**
 * Whether an error means "the database cannot be reached or is not serving right now" (worth retrying
 * later, not a fault of the request or of the data), as opposed to an error of the statement itself.
 * The one place this is decided: the gateway answers 503 DATABASE_UNAVAILABLE for these, startup
 * retries them, and a run interrupted by one is retried rather than failed.
 *
 * Duck-typed on `code` and `message` (no dependency on the driver): PostgreSQL's SQLSTATE, Node's
 * socket error codes, and the messages node-postgres and pg-pool give their own connection failures.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causes(error).some(isUnavailableCause);
}

// SQLSTATEs of a server that is shutting down, starting up, out of connections or cut off.
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown (also pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, recovering)
  "53300", // too_many_connections
]);
// Class 08: connection exceptions.
const CONNECTION_EXCEPTION_CLASS = "08";

// Node's errors of a socket that could not connect or was cut.
const SOCKET_ERROR_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED"]);

// node-postgres and pg-pool raise these as plain Errors, without a code.
const DRIVER_MESSAGES = [
  /^Connection terminated/, // "... unexpectedly", "... due to connection timeout"
  /^timeout expired$/, // node-postgres' connectionTimeoutMillis, connecting a client
  /^timeout exceeded when trying to connect$/, // pg-pool's connectionTimeoutMillis
  /^Query read timeout$/, // node-postgres' query_timeout: the answer never came
  /is not queryable$/, // a client that already lost its connection
  /^Client was closed/,
];

function isUnavailableCause(error: { code?: unknown; message?: unknown }): boolean {
  const code = typeof error.code === "string" ? error.code : "";
  if (code === DATABASE_UNAVAILABLE) return true;
  if (UNAVAILABLE_SQLSTATES.has(code) || SOCKET_ERROR_CODES.has(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code) && code.startsWith(CONNECTION_EXCEPTION_CLASS)) return true;
  const message = typeof error.message === "string" ? error.message : "";
  return DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}

/** The error, the errors it wraps (`cause`, an AggregateError's `errors`), and theirs; cycles cut. */
function causes(error: unknown, seen = new Set<unknown>()): Array<{ code?: unknown; message?: unknown }> {
  if (typeof error !== "object" || error === null || seen.has(error)) return [];
  seen.add(error);
  const wrapped = error as { cause?: unknown; errors?: unknown };
  const inner = [wrapped.cause, ...(Array.isArray(wrapped.errors) ? wrapped.errors : [])];
  return [error as { code?: unknown; message?: unknown }, ...inner.flatMap((cause) => causes(cause, seen))];
}
