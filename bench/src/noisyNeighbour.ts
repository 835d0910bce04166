// What B9 and B13 share: tenant B's timed `wait` runs, tenant A's flood of queued runs, and reading
// the replica's per-tenant metrics, on one gateway replica with authentication on.
import { performance } from "node:perf_hooks";
import { median, percentile } from "./figure";
import type { GatewayApi } from "./gatewayApi";
import { issueToken } from "./gatewayProcess";

/** Request headers of `tenantId`, with a token signed by `secret` as operators issue them. */
export const bearer = (secret: string, tenantId: string) => ({ authorization: `Bearer ${issueToken(secret, tenantId)}` });

/** Sends one `wait` run and times it to its answer. */
async function timedWaitRun(api: GatewayApi, assistantId: string, threadId: string, message: string): Promise<number> {
  const startedAt = performance.now();
  const response = await fetch(`${api.url}/api/runs`, {
    method: "POST",
    headers: { ...api.headers, "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: assistantId, thread_id: threadId, message, mode: "wait" }),
  });
  const body = (await response.json()) as { status?: string };
  if (response.status !== 200 || body.status !== "success") throw new Error(`${message}: B's run answered ${response.status}: ${JSON.stringify(body)}`);
  return performance.now() - startedAt;
}

/** One `wait` run per thread, one after another, timed; the first `warmUp` left out. */
export async function timedRuns(api: GatewayApi, assistantId: string, threadIds: string[], warmUp: number, message: string): Promise<number[]> {
  const durations: number[] = [];
  for (const threadId of threadIds) durations.push(await timedWaitRun(api, assistantId, threadId, message));
  return durations.slice(warmUp);
}

export interface FloodOptions {
  assistantId: string;
  threadIds: string[];
  /** Runs offered, round the threads. */
  runs: number;
  /** Requests in flight at once (A's clients). */
  concurrency: number;
  /** Each run's message: `/sleep <ms>` holds a slot without CPU; any other text is echoed by the scripted model. */
  message: string;
  label: string;
}

/** What a flood got: runs queued (202) and refused (429), so far. */
export interface FloodCounts {
  accepted: number;
  refused: number;
}

/** Offers A's runs; `counts` is updated as answers come, so a caller can start once the flood is on. */
export function flood(api: GatewayApi, { assistantId, threadIds, runs, concurrency, message, label }: FloodOptions): { counts: FloodCounts; done: Promise<FloodCounts> } {
  let next = 0;
  const counts: FloodCounts = { accepted: 0, refused: 0 };
  const client = async () => {
    while (next < runs) {
      const threadId = threadIds[next++ % threadIds.length];
      const response = await fetch(`${api.url}/api/runs`, {
        method: "POST",
        headers: { ...api.headers, "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: assistantId, thread_id: threadId, message, mode: "queue" }),
      });
      await response.arrayBuffer();
      if (response.status === 202) counts.accepted += 1;
      else if (response.status === 429) counts.refused += 1;
      else throw new Error(`${label}: A's run answered ${response.status}`);
    }
  };
  return { counts, done: Promise.all(Array.from({ length: concurrency }, client)).then(() => counts) };
}

/** Scrapes `/metrics` for one series (the sum over matching samples). */
export async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith(series))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

export const summarise = (values: number[]) => ({ p50: median(values), p99: percentile(values, 99), max: Math.max(...values) });
