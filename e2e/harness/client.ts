/** Minimal HTTP client for the gateway API, as a user would call it. */

import { eventually as pollUntil } from "@axiom-lattice/testing";
import { tokenFor } from "./auth";

export { parseSse } from "@axiom-lattice/testing";

/**
 * One request as a user sends it: authenticated as the tenant `x-tenant-id` names (`default` without
 * one) unless `headers` carry their own `authorization`.
 */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: <T = unknown>() => T }> {
  const authorization = headers.authorization ?? `Bearer ${await tokenFor(headers["x-tenant-id"] ?? "default")}`;
  const withAuth = { authorization, ...headers };
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? withAuth : { "content-type": "application/json", ...withAuth },
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
  message_id: string;
  status: string;
  replica_id: string | null;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
}

/** Polls until `check` returns a value (not undefined) or the bound passes; returns that value. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  let value: T | undefined;
  await pollUntil(what, async () => (value = await check()) !== undefined, { timeoutMs, intervalMs: 100 });
  return value as T;
}
