// Whether an error says the database could not be used at all (its connection lost or refused, the
// server shutting down or out of connections) rather than that it refused a statement. Work cut short
// by such an error is not at fault and is worth retrying once the database answers again.

/** Server shutdown (admin, crash), "cannot connect now" (starting up, recovering), too many connections. */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** SQLSTATE class 08: connection exceptions. */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;
/** Node's socket errors on the way to the server. */
const SOCKET_ERROR_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
/** node-postgres's own errors for a lost or unobtainable connection, which carry no code. */
const CONNECTION_LOST_MESSAGES = new Set([
  "Connection terminated",
  "Connection terminated unexpectedly",
  "Connection terminated due to connection timeout",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
]);
/** Callers (LangGraph, our stores) wrap errors a few times at most; a cycle must not hang the walk. */
const MAX_DEPTH = 5;

function unavailableAlone(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_EXCEPTION.test(code) || SOCKET_ERROR_CODES.has(code))) return true;
  return CONNECTION_LOST_MESSAGES.has(error.message);
}

/** True when `error`, or an error in its `cause` chain, says the database is unavailable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth <= MAX_DEPTH; cause = cause.cause, depth++) {
    if (unavailableAlone(cause)) return true;
  }
  return false;
}
