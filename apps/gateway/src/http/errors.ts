import { isDatabaseUnavailable } from "@axiom-lattice/core";
import type { ErrorCode } from "@axiom-lattice/protocols";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RETRY_AFTER_BUSY_S, RETRY_AFTER_SUBMISSIONS_S, RETRY_AFTER_UNAVAILABLE_S } from "../defaults";

/**
 * The HTTP status of every error code. Checked against the `ErrorCode` union: a new code without a
 * status does not compile. A 500 here is a fault of the server (or of the code calling a library
 * wrongly), never of the request.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_JSON: 400,
  INVALID_TENANT: 400,
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  TENANT_MISMATCH: 403,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  TOO_MANY_STREAMS: 429,
  TOO_MANY_SUBMISSIONS: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CLIENT_ERROR: 400,
  NOT_FOUND: 404,
  AFFINITY_MISS: 409,
  NOT_READY: 503,
  INTERNAL_ERROR: 500,
  NOT_SUPPORTED: 422,
  DATABASE_UNAVAILABLE: 503,
  INVALID_STORE_ARGUMENT: 400,
  INVALID_CURSOR: 400,
  ALREADY_EXISTS: 409,
  QUEUE_FULL: 429,
  DUPLICATE_MESSAGE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  INVALID_LEASE_ARGUMENT: 500,
  LEASE_ACQUIRE_TIMEOUT: 500,
  // Work that lost its lease to a newer holder: the request met a concurrent one, and lost.
  LEASE_LOST: 409,
  MUTEX_REENTRY: 500,
  INVALID_OUTBOX_ARGUMENT: 500,
  INVALID_OUTBOX_PAYLOAD: 500,
  INVALID_OUTBOX_CURSOR: 500,
  INVALID_CRON: 400,
  INVALID_TIMEZONE: 400,
  INVALID_SCHEDULE: 400,
  EXECUTE_AT_IN_PAST: 400,
  UNKNOWN_TASK_TYPE: 400,
  SCHEDULE_NOT_FOUND: 404,
  INVALID_SCHEDULE_STATE: 409,
  ASSISTANT_NOT_FOUND: 404,
  GRAPH_NOT_FOUND: 404,
  THREAD_BUSY: 409,
  RUN_IN_PROGRESS: 409,
  NOTHING_TO_RESUME: 409,
  // Only a run's error: the graph took more steps than the run allowed.
  GRAPH_RECURSION_LIMIT: 422,
  INVALID_RUN_INPUT: 400,
  INVALID_DIRECTIVE: 400,
  UNKNOWN_MODEL_PROVIDER: 400,
  MODEL_DISABLED: 400,
  UNKNOWN_TOOL: 400,
  TOOL_DISABLED: 400,
  INVALID_BASE_URL: 400,
  BASE_URL_NOT_ALLOWED: 400,
  MCP_COMMAND_NOT_ALLOWED: 400,
  SECRETS_REQUIRED: 400,
  // The model provider's API, not the gateway, failed: a gateway's own upstream statuses.
  UPSTREAM_UNREACHABLE: 502,
  UPSTREAM_AUTH_FAILED: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_RATE_LIMITED: 503,
  UPSTREAM_INVALID_RESPONSE: 502,
  UPSTREAM_REDIRECT_BLOCKED: 502,
  // The MCP server the request needs is down or hangs: a bad gateway, not a fault of this one.
  MCP_SERVER_UNAVAILABLE: 502,
  INVALID_TASK_STATE: 409,
  TASK_NOT_DISPATCHABLE: 400,
  TASK_BUSY: 409,
  TASK_MACHINE_BUSY: 409,
  NOT_A_PROJECT_MEMBER: 409,
} as const satisfies Record<ErrorCode, number>;

// Domain "not found" errors share the API's one code, so clients need not know each kind.
const PUBLIC_CODE: Partial<Record<ErrorCode, ErrorCode>> = { ASSISTANT_NOT_FOUND: "NOT_FOUND", GRAPH_NOT_FOUND: "NOT_FOUND", SCHEDULE_NOT_FOUND: "NOT_FOUND" };

// Fastify's own client errors, mapped to stable codes.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_JSON",
  FST_ERR_VALIDATION: "INVALID_REQUEST",
};

// Refusals of work a tenant has too much of: worth retrying once some of it has finished.
// and of work this replica or its database could not take just now (starting or shutting down, a
// database restart, failover or partition).
const RETRY_AFTER_S: Partial<Record<ErrorCode, number>> = {
  QUEUE_FULL: RETRY_AFTER_BUSY_S,
  TOO_MANY_STREAMS: RETRY_AFTER_BUSY_S,
  TOO_MANY_SUBMISSIONS: RETRY_AFTER_SUBMISSIONS_S,
  TASK_MACHINE_BUSY: RETRY_AFTER_BUSY_S,
  DATABASE_UNAVAILABLE: RETRY_AFTER_UNAVAILABLE_S,
  NOT_READY: RETRY_AFTER_UNAVAILABLE_S,
};

export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);

/** An error that reaches the client with its code's status (see {@link ERROR_STATUS}). */
export class HttpError extends Error {
  // A plain field, not a getter: Fastify writes it on the validation errors it is handed.
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HttpError";
    this.statusCode = ERROR_STATUS[code];
  }
}

/** How a failed request is answered, whatever the body's shape: its status, stable code and English message. */
export interface ErrorAnswer {
  status: number;
  code: ErrorCode;
  message: string;
  /** More fields of the answer (an `HttpError`'s details). */
  details?: Record<string, unknown>;
}

/** The answer to a request that failed with `error`; anything unexpected is logged, and a 500. */
export function errorAnswerOf(error: FastifyError | HttpError, request: FastifyRequest): ErrorAnswer {
  if (error instanceof HttpError) return { status: error.statusCode, code: error.code, message: error.message, details: error.details };
  // Errors of the packages carry a code of the union; those that are not the request's fault are 500s.
  if (isErrorCode(error.code) && ERROR_STATUS[error.code] < 500) {
    return { status: ERROR_STATUS[error.code], code: PUBLIC_CODE[error.code] ?? error.code, message: error.message };
  }
  // Not a fault of this server nor of the request: the client retries, here or on another replica.
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, "request failed: the database is unavailable");
    return { status: ERROR_STATUS.DATABASE_UNAVAILABLE, code: "DATABASE_UNAVAILABLE", message: "The database is unavailable; retry shortly" };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, code: FASTIFY_CODES[error.code] ?? (status === 400 ? "INVALID_REQUEST" : "CLIENT_ERROR"), message: error.message };
  }
  request.log.error({ err: error }, "request failed");
  return { status: 500, code: "INTERNAL_ERROR", message: "Internal server error" };
}

/** Sets the `Retry-After` header when retrying later helps with `code`. */
export function adviseRetry(reply: FastifyReply, code: ErrorCode): FastifyReply {
  const retryAfter = RETRY_AFTER_S[code];
  if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
  return reply;
}

/** Whether `url` is under `/api`; the rest of the root is the LangGraph API's. */
const isApiUrl = (url: string) => url === "/api" || /^\/api[/?]/.test(url);

/**
 * Every error answers `{ success: false, code, error }`; anything unexpected is a logged 500. An
 * unknown route under `/api` answers 404 in that shape too; one elsewhere at the root answers as
 * LangGraph Platform does, `{ detail }` (with the code beside it), for the LangGraph clients that call
 * there (a route of the platform's this gateway lacks), unless `unrouted` answers it (the operator's
 * custom routes).
 */
export function installErrorHandling(app: FastifyInstance, unrouted?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const { status, code, message, details } = errorAnswerOf(error, request);
    return adviseRetry(reply, code).status(status).send({ success: false, code, error: message, ...details });
  });

  app.setNotFoundHandler((request, reply) => {
    const message = `Route ${request.method} ${request.url} not found`;
    if (isApiUrl(request.url)) return reply.status(404).send({ success: false, code: "NOT_FOUND", error: message });
    if (unrouted) return unrouted(request, reply);
    return reply.status(404).send({ detail: message, code: "NOT_FOUND" });
  });
}
