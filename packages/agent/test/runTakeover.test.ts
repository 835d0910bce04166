// A message's stream across a takeover (issue 23): a hand-over is marked, not the end of the stream,
// which goes on with the next attempt's `run_resumed`, ids increasing; and a run streams only so far
// beyond what its replica logged. (apps/gateway's runTakeover test kills the owner, on both logs.)
import { InMemoryRunEventLog, type QueueWakeup, threadRunLeaseKey } from "@axiom-lattice/core";
import type { RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import type { StreamChunk } from "../src";
import { RUN_EVENT_UNLOGGED_LIMIT } from "../src/defaults";
import { collect, manager, runEventLog, runStatus, scope, thread, tokens, useSharedStores } from "./support";

const stores = useSharedStores();

/** A wake-up that reaches nobody: only what the test starts runs. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };
const shortLeases = { threadRunTtlMs: 300, claimLeaseMs: 300 };
const dripping = (words: number) => `/drip 20 ${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")}`;

/** Reads `stream` in the background; `chunks` fills as they arrive. */
function reading(stream: AsyncIterable<StreamChunk>) {
  const chunks: StreamChunk[] = [];
  const done = (async () => {
    for await (const chunk of stream) chunks.push(chunk);
  })();
  return { chunks, done };
}

const indexes = (chunks: StreamChunk[]) => chunks.map((chunk) => chunk.index);
const increasing = (values: number[]) => values.every((value, i) => i === 0 || value > values[i - 1]);

/** The run's text as the attempt that finished it streamed it: its tokens after its `run_resumed`. */
const lastAttemptText = (chunks: StreamChunk[]) => tokens(chunks.slice(chunks.map((chunk) => chunk.type).lastIndexOf("run_resumed") + 1)).join("");

describe.each([
  ["its last events logged by the completion", true],
  ["every event logged apart", false],
])("a hand-over mid-stream, %s", (_name, withCompletion) => {
  it("lease lost: the owner's own stream goes on with the peer's attempt, after run_handed_over and run_resumed", async () => {
    const { options: logging } = runEventLog(stores, withCompletion);
    const text = dripping(30);
    const owner = manager(stores, { ...logging, replicaId: "replica-a", wakeup: lostWakeups, ...shortLeases }).getAgent(thread("t1"));
    const { messageId, stream } = await owner.addMessage({ message: text }, { mode: "stream" });
    const local = reading(stream);
    await eventually("a few tokens", () => tokens(local.chunks).length >= 5, { timeoutMs: 5_000 });

    // The lease is taken over (as after an expiry), and the peer runs the message again.
    const key = threadRunLeaseKey(thread("t1"));
    await stores.leases.release(key, (await stores.leases.get(key))!.holder);
    void manager(stores, { ...logging, replicaId: "replica-b", wakeup: lostWakeups, ...shortLeases }).getAgent(thread("t1")).resumeTask();
    await local.done;

    const types = local.chunks.map((chunk) => chunk.type);
    const handedOver = types.indexOf("run_handed_over");
    expect(local.chunks[handedOver].data).toMatchObject({ code: expect.stringMatching(/^(LEASE_LOST|CLAIM_LOST)$/), replica: "replica-a" });
    expect(types.indexOf("run_resumed")).toBeGreaterThan(handedOver);
    expect(local.chunks.find((chunk) => chunk.type === "run_resumed")?.data).toEqual({ replica: "replica-b", attempt: 2 });
    expect(types.at(-1)).toBe("message_completed");
    expect(increasing(indexes(local.chunks))).toBe(true);
    expect(lastAttemptText(local.chunks)).toBe(`echo: ${text}`);
    expect(await runStatus(stores, messageId)).toBe("success");
  });

  it("shutdown: the leaving replica's stream ends at run_handed_over; a follower elsewhere sees the run go on, and a client resumes after its last id", async () => {
    const { options: logging } = runEventLog(stores, withCompletion);
    const text = dripping(30);
    const leaving = manager(stores, { ...logging, replicaId: "replica-a", wakeup: lostWakeups });
    const { messageId, stream } = await leaving.getAgent(thread("t1")).addMessage({ message: text }, { mode: "stream" });
    const local = reading(stream);
    const follower = reading(manager(stores, { ...logging, replicaId: "replica-c", streamPollMs: 50 }).getAgent(thread("t1")).chunkStream(messageId));
    await eventually("a few tokens", () => tokens(local.chunks).length >= 5, { timeoutMs: 5_000 });
    const peer = manager(stores, { ...logging, replicaId: "replica-b", wakeup: lostWakeups });

    await leaving.shutdown();
    await local.done;
    expect(local.chunks.at(-1)).toMatchObject({ type: "run_handed_over", data: { code: "REPLICA_SHUTDOWN", replica: "replica-a" } });
    await peer.getAgent(thread("t1")).resumeTask();
    await follower.done;

    // The follower: the first attempt's events, its hand-over, the second attempt, in id order.
    expect(follower.chunks.slice(0, local.chunks.length)).toEqual(local.chunks);
    const resumed = follower.chunks[local.chunks.length];
    expect(resumed).toMatchObject({ type: "run_resumed", data: { replica: "replica-b", attempt: 2 } });
    expect(resumed.index).toBe(local.chunks.at(-1)!.index + RUN_EVENT_UNLOGGED_LIMIT + 1);
    expect(follower.chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(increasing(indexes(follower.chunks))).toBe(true);
    expect(lastAttemptText(follower.chunks)).toBe(`echo: ${text}`);

    // The leaving replica's client resumes on the peer after the last id it got.
    expect(await collect(peer.getAgent(thread("t1")).chunkStream(messageId, local.chunks.at(-1)!.index))).toEqual(follower.chunks.slice(local.chunks.length));
  });
});

/** A log that refuses every append while `down` (a database gone), as a connection error. */
function failingLog(log: RunEventLog) {
  const state = { down: true, appends: 0 };
  const wrapped: RunEventLog = {
    append: (run: RunEventRef, events: RunEvent[]) => {
      state.appends++;
      return state.down ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })) : log.append(run, events);
    },
    read: log.read.bind(log),
    lastIndex: log.lastIndex.bind(log),
    deleteRun: log.deleteRun.bind(log),
    deleteThread: log.deleteThread.bind(log),
    pruneOlderThan: log.pruneOlderThan.bind(log),
    subscribe: log.subscribe.bind(log),
  };
  return { log: wrapped, state };
}

describe("a run whose events cannot be logged", () => {
  const words = RUN_EVENT_UNLOGGED_LIMIT + 200;
  const text = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
  // The echo's tokens: "echo:" and one per word.
  const answerChunks = words + 1;

  it(`streams at most ${RUN_EVENT_UNLOGGED_LIMIT - 1} events beyond the last logged one, and goes on once they are logged`, async () => {
    const logged = new InMemoryRunEventLog({ fences: stores.leases });
    const { log, state } = failingLog(logged);
    const agent = manager(stores, { runEvents: log, runEventFlushMs: 20 }).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: text }, { mode: "stream" });
    const local = reading(stream);

    await eventually("the run to stop at its bound", () => local.chunks.length === RUN_EVENT_UNLOGGED_LIMIT - 1, { timeoutMs: 10_000 });
    const appendsWhileWaiting = state.appends;
    await eventually("the log to be retried", () => state.appends > appendsWhileWaiting + 2, { timeoutMs: 5_000 });
    expect(local.chunks).toHaveLength(RUN_EVENT_UNLOGGED_LIMIT - 1);

    state.down = false;
    await local.done;
    expect(tokens(local.chunks)).toHaveLength(answerChunks);
    expect(local.chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await logged.read({ ...thread("t1"), messageId }, -1, 10_000)).toEqual(local.chunks.map(({ type, data, index }) => ({ type, data, index })));
  });

  it("stops at once when aborted while it waits; its outcome takes the last place", async () => {
    const { log } = failingLog(new InMemoryRunEventLog({ fences: stores.leases }));
    const agent = manager(stores, { runEvents: log, runEventFlushMs: 20 }).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: text }, { mode: "stream" });
    const local = reading(stream);
    await eventually("the run to stop at its bound", () => local.chunks.length === RUN_EVENT_UNLOGGED_LIMIT - 1, { timeoutMs: 10_000 });

    expect(await agent.abort()).toMatchObject({ status: "aborted" });
    await local.done;
    expect(local.chunks).toHaveLength(RUN_EVENT_UNLOGGED_LIMIT);
    expect(local.chunks.at(-1)).toMatchObject({ type: "message_failed", index: RUN_EVENT_UNLOGGED_LIMIT - 1, data: { status: "aborted" } });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ status: "completed", runStatus: "aborted" });
  });
});
