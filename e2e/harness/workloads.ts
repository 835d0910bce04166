import { expect } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "./client";

export const ASSISTANT = "echo";

/** Creates the built-in echo assistant and the given threads through `url`. */
export async function createThreads(url: string, threadIds: string[]): Promise<void> {
  await expectOk(call(url, "POST", "/api/assistants", { id: ASSISTANT, name: "Echo" }), 201);
  await Promise.all(threadIds.map((id) => expectOk(call(url, "POST", "/api/threads", { thread_id: id, assistant_id: ASSISTANT }), 201)));
}

/**
 * Queues `perThread` messages on every thread: a thread's messages one after another, each through
 * the next entry point in turn (replicas, or one load balancer).
 */
export async function enqueueAcross(entryUrls: string[], threadIds: string[], perThread: number): Promise<void> {
  await Promise.all(
    threadIds.map(async (threadId, t) => {
      for (let m = 0; m < perThread; m++) {
        await expectOk(
          call(entryUrls[(t + m) % entryUrls.length], "POST", "/api/runs", {
            assistant_id: ASSISTANT,
            thread_id: threadId,
            message: `${threadId} message ${m}`,
            message_id: `${threadId}-m${m}`,
            mode: "queue",
          }),
          202,
        );
      }
    }),
  );
}

/**
 * Waits for every message to finish, then proves: each processed exactly once (one answer per
 * message in the conversation), in enqueue order, no two runs of a thread overlapping in time, by
 * known replicas. Returns how many runs each replica served.
 */
export async function expectProcessedOnceInOrder(
  url: string,
  threadIds: string[],
  perThread: number,
  replicaIds: string[],
): Promise<Record<string, number>> {
  const servedBy: Record<string, number> = {};
  for (const threadId of threadIds) {
    const runs = await eventually(
      async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(url, "GET", `/api/threads/${threadId}/runs`));
        return runs.length === perThread && runs.every((run) => run.finished_at) ? runs : undefined;
      },
      120_000,
      `all runs of ${threadId} finished`,
    );
    expect(runs.every((run) => run.status === "success")).toBe(true);
    expect(new Set(runs.map((run) => run.message_id)).size).toBe(perThread);

    const state = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(url, "GET", `/api/threads/${threadId}/state`));
    const humans = state.messages.filter((message) => message.type === "human").map((message) => message.content);
    const answers = state.messages.filter((message) => message.type === "ai").map((message) => message.content);
    expect(humans).toEqual(Array.from({ length: perThread }, (_, m) => `${threadId} message ${m}`));
    expect(answers).toEqual(humans.map((text) => `echo: ${text}`));

    const ordered = [...runs].sort((a, b) => Date.parse(a.started_at!) - Date.parse(b.started_at!));
    expect(ordered.map((run) => run.message_id)).toEqual(Array.from({ length: perThread }, (_, m) => `${threadId}-m${m}`));
    for (let i = 1; i < ordered.length; i++) {
      expect(Date.parse(ordered[i].started_at!)).toBeGreaterThanOrEqual(Date.parse(ordered[i - 1].finished_at!));
    }
    for (const run of runs) {
      expect(replicaIds).toContain(run.replica_id);
      servedBy[run.replica_id!] = (servedBy[run.replica_id!] ?? 0) + 1;
    }
  }
  return servedBy;
}

/** Waits until no replica runs the thread (its run lease is released). */
export async function waitUntilReleased(url: string, threadId: string): Promise<void> {
  await eventually(
    async () => {
      const { owner } = await expectOk<{ owner: string | null }>(call(url, "GET", `/api/threads/${threadId}/queue`));
      return owner === null ? true : undefined;
    },
    10_000,
    `thread ${threadId} released`,
  );
}

/** Runs one turn in `wait` mode through `url` and returns the conversation after it. */
export async function runTurn(url: string, threadId: string, message: string, messageId: string, headers: Record<string, string> = {}) {
  const result = await expectOk<{ status: string; messages: Array<{ type: string; content: string }> }>(
    call(url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: threadId, message, message_id: messageId, mode: "wait" }, headers),
  );
  expect(result.status).toBe("success");
  // `wait` answers the messages this run added, its own human message first; the conversation is the thread's state.
  expect(result.messages[0]).toMatchObject({ type: "human", content: message });
  const state = await expectOk<{ messages: Array<{ content: string }> }>(call(url, "GET", `/api/threads/${threadId}/state`, undefined, headers));
  return state.messages.map((m) => m.content);
}

/** Queues a long run and waits until a replica claims it; returns that replica's id. */
export async function startLongRun(url: string, threadId: string, messageId: string, sleepMs: number): Promise<string> {
  await expectOk(
    call(url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: threadId, message: `/sleep ${sleepMs}`, message_id: messageId, mode: "queue" }),
    202,
  );
  return eventually(
    async () => {
      const { processing } = await expectOk<{ processing: Array<{ replica_id?: string }> }>(call(url, "GET", `/api/threads/${threadId}/queue`));
      return processing[0]?.replica_id;
    },
    10_000,
    "the long run started",
  );
}
