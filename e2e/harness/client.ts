/** Minimal HTTP client for the gateway API, as a user would call it. */

export { parseSse } from "@axiom-lattice/testing";

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: <T = unknown>() => T }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

export async function expectOk<T>(promise: ReturnType<typeof call>, status = 200): Promise<T> {
  const response = await promise;
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  return response.json<T>();
}

export interface RunRecord {
  messageId: string;
  status: string;
  replicaId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
}

/** Polls until `check` returns a value (not undefined) or the bound passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
