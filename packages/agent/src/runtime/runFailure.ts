// A failed run's record keeps one error text. Its stable code, when it has one, leads that text
// (`UPSTREAM_TIMEOUT: …`), so the record, the streamed `message_failed` chunk and a replay of the
// chunk from the record all carry the same code without a column of its own.

const CODE_PREFIX = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+): /;

/** The error text a failed run records: `<CODE>: <message>` for an error with a stable code. */
export function runFailureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && CODE_PREFIX.test(`${code}: `) ? `${code}: ${error.message}` : error.message;
}

/**
 * The error text a failed run of a deployed graph records: `<ErrorName>: <message>`, the error's class
 * named as LangGraph Platform names it (`GraphRecursionError`, a graph's own `CustomError`).
 */
export function graphFailureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return `${error.name}: ${error.message}`;
}

/** The stable code a recorded run error starts with, if any. */
export function runFailureCode(text: string | undefined): string | undefined {
  return text?.match(CODE_PREFIX)?.[1];
}
