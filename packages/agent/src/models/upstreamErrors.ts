import { findEgressRefusal } from "@axiom-lattice/core";
import type { ErrorCode } from "@axiom-lattice/protocols";

/** The stable codes of a model API's failures. */
export type UpstreamErrorCode = Extract<ErrorCode, `UPSTREAM_${string}`>;

/** A model provider's API failed the call; `code` says how. */
export class UpstreamError extends Error {
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "UpstreamError";
  }
}

// Network failures before any answer (Node's socket errors and undici's), by the code of the error
// or of one of its causes.
const UNREACHABLE_NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);
const TIMEOUT_NETWORK_CODES = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

// LangChain's words (a plain Error) for a streamed answer in which no chunk could be read.
const LANGCHAIN_EMPTY_STREAM = "Received empty response from chat model call.";

/** The code of an HTTP error status a model API answered with. */
export function upstreamCodeOfStatus(status: number): UpstreamErrorCode {
  if (status === 401 || status === 403) return "UPSTREAM_AUTH_FAILED";
  if (status === 429) return "UPSTREAM_RATE_LIMITED";
  if (status === 408 || status === 504) return "UPSTREAM_TIMEOUT";
  if (status === 502 || status === 503) return "UPSTREAM_UNREACHABLE";
  return "UPSTREAM_INVALID_RESPONSE";
}

function networkCode(error: unknown): UpstreamErrorCode | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (UNREACHABLE_NETWORK_CODES.has(code)) return "UPSTREAM_UNREACHABLE";
    if (TIMEOUT_NETWORK_CODES.has(code)) return "UPSTREAM_TIMEOUT";
  }
  return undefined;
}

/**
 * The stable code of a failed model API call, read from the OpenAI SDK's error classes (as
 * LangChain re-throws them: a timeout becomes a `TimeoutError`, HTTP errors keep their `status`) and
 * from network error codes. Undefined for an error that did not come from talking to the API, such
 * as a model's own deliberate failure.
 */
export function classifyUpstreamError(error: unknown): UpstreamErrorCode | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error instanceof UpstreamError) return error.code;
  const kind = error.constructor.name;
  if (error.name === "TimeoutError" || kind === "APIConnectionTimeoutError") return "UPSTREAM_TIMEOUT";
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number") return upstreamCodeOfStatus(status);
  const network = networkCode(error);
  if (network) return network;
  if (kind === "APIConnectionError") return "UPSTREAM_UNREACHABLE";
  // The API answered, but not with JSON, or with a stream that held no completion.
  if (error instanceof SyntaxError || error.message === LANGCHAIN_EMPTY_STREAM) return "UPSTREAM_INVALID_RESPONSE";
  return undefined;
}

const UPSTREAM_MESSAGES: Record<UpstreamErrorCode, string> = {
  UPSTREAM_UNREACHABLE: "The model API could not be reached",
  UPSTREAM_AUTH_FAILED: "The model API refused the credentials",
  UPSTREAM_TIMEOUT: "The model API did not answer in time",
  UPSTREAM_RATE_LIMITED: "The model API is rate limiting requests",
  UPSTREAM_INVALID_RESPONSE: "The model API's answer could not be read",
  UPSTREAM_REDIRECT_BLOCKED: "The model API redirected the call to an address the egress policy refuses",
};

/**
 * `error` as an {@link UpstreamError} when it is a failure of the model API; the egress policy's
 * refusal when the call was refused (`BASE_URL_NOT_ALLOWED` before it left, `UPSTREAM_REDIRECT_BLOCKED`
 * at a redirect); else `error` itself.
 */
export function asUpstreamError(error: unknown): unknown {
  const refusal = findEgressRefusal(error);
  if (refusal) return refusal;
  const code = classifyUpstreamError(error);
  if (!code || error instanceof UpstreamError) return error;
  if (code === "UPSTREAM_AUTH_FAILED") {
    // APIs quote the key they refused (OpenAI shows its first and last characters): neither their
    // message nor their error (a cause, which logs print) is kept, only the status.
    return new UpstreamError(code, `${UPSTREAM_MESSAGES[code]}: HTTP ${(error as { status?: unknown }).status}`);
  }
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new UpstreamError(code, `${UPSTREAM_MESSAGES[code]}: ${detail}`, { cause: error });
}
