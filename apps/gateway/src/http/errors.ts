import type { FastifyError, FastifyInstance } from "fastify";

/** An error that reaches the client with its own status and stable code. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

// Fastify's own client errors, mapped to stable codes.
const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_JSON",
  FST_ERR_VALIDATION: "INVALID_REQUEST",
};

// Errors of the core packages that are the client's doing, by their stable code. Anything else is a 500.
const DOMAIN_STATUS: Record<string, number> = {
  INVALID_STORE_ARGUMENT: 400,
  INVALID_RUN_INPUT: 400,
  INVALID_DIRECTIVE: 400,
  UNKNOWN_MODEL_PROVIDER: 400,
  UNKNOWN_TOOL: 400,
  ASSISTANT_NOT_FOUND: 404,
  SCHEDULE_NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  DUPLICATE_MESSAGE: 409,
  THREAD_BUSY: 409,
  NOTHING_TO_RESUME: 409,
  INVALID_SCHEDULE_STATE: 409,
  QUEUE_FULL: 429,
};

// Domain "not found" errors share the API's one code, so clients need not know each kind.
const PUBLIC_CODE: Record<string, string> = { ASSISTANT_NOT_FOUND: "NOT_FOUND", SCHEDULE_NOT_FOUND: "NOT_FOUND" };

/** Every error answers `{ success: false, code, error }`; anything unexpected is a logged 500. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.status(error.statusCode).send({ success: false, code: error.code, error: error.message, ...error.details });
    }
    const domainStatus = DOMAIN_STATUS[error.code];
    if (domainStatus) {
      return reply.status(domainStatus).send({ success: false, code: PUBLIC_CODE[error.code] ?? error.code, error: error.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = FASTIFY_CODES[error.code] ?? (status === 400 ? "INVALID_REQUEST" : "CLIENT_ERROR");
      return reply.status(status).send({ success: false, code, error: error.message });
    }
    request.log.error({ err: error }, "request failed");
    return reply.status(500).send({ success: false, code: "INTERNAL_ERROR", error: "Internal server error" });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ success: false, code: "NOT_FOUND", error: `Route ${request.method} ${request.url} not found` });
  });
}
