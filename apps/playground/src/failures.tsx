/** A failure as the page shows it: the gateway's English message, its stable code and HTTP status when known. */
export interface Failure {
  message: string;
  code?: string;
  status?: number;
}

/** Error names that say nothing more than that something failed. */
const GENERIC_NAMES = new Set(["Error", "StreamError", "TypeError", "AbortError"]);

/**
 * An SDK failure in words. A refused request (the SDK's `HTTPError`) carries the gateway's JSON body
 * as its text: `{ detail, code }` on the LangGraph API, `{ error, code }` on `/api`, `{ message }` from
 * a plugin. A failed run arrives as a stream error, its code as the error's name.
 */
export function describe(failure: unknown): Failure {
  const { status, text, message, name } = failure as { status?: number; text?: string; message?: string; name?: string };
  if (typeof status === "number" && typeof text === "string") return { ...bodyFailure(text), status };
  const code = name && !GENERIC_NAMES.has(name) ? name : undefined;
  return { message: message || String(failure), ...(code ? { code } : {}) };
}

function bodyFailure(text: string): Failure {
  try {
    const body = JSON.parse(text) as { detail?: unknown; message?: unknown; error?: unknown; code?: unknown };
    const message = [body.detail, body.message, body.error].find((each): each is string => typeof each === "string" && each !== "");
    if (message) return { message, ...(typeof body.code === "string" ? { code: body.code } : {}) };
  } catch {
    // not JSON: the text is the message
  }
  return { message: text.trim() || "The gateway refused the request" };
}

export function FailureView({ failure }: { failure: Failure }) {
  const about = [failure.code, failure.status === undefined ? undefined : `HTTP ${failure.status}`].filter(Boolean).join(" · ");
  return (
    <p className="error" role="alert">
      {failure.message}
      {about && <small className="error-code">{about}</small>}
    </p>
  );
}
