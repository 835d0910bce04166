// The runtime's side of the run event log: what a run writes (ids continuing across a re-run), and
// how a replica without the run's buffer follows it from the log.
import type { RunEventLog } from "@axiom-lattice/protocols";
import { describe, expect, it } from "vitest";
import { RUN_EVENT_UNLOGGED_LIMIT } from "../src/defaults";
import { collect, manager, runEventLog, scope, thread, tokens, useSharedStores } from "./support";

describe.each([
  ["its last events logged by the completion", true],
  ["every event logged apart", false],
])("run event log, %s", (_name, withCompletion) => {
  const stores = useSharedStores();

  it("a re-run of a message (claimed before by a replica that died) starts with run_resumed, its ids past any the dead one may have streamed", async () => {
    const { log: runEvents, options: logging } = runEventLog(stores, withCompletion);
    const ref = { ...thread("rerun"), messageId: "m-rerun" };
    await stores.queue.addMessage({ id: "m-rerun", threadId: "rerun", scope, content: { message: "again" } });
    await stores.queue.claimPendingMessages({ ...scope, threadId: "rerun" }, { owner: "dead-replica#1", leaseMs: 60_000 });
    await runEvents.append(ref, [0, 1, 2].map((index) => ({ type: "message_chunk" as const, data: { content: `lost ${index}` }, index })));

    const agent = manager(stores, { ...logging, replicaId: "replica-b" }).getAgent(thread("rerun"));
    await agent.resumeTask();
    const chunks = await collect(agent.chunkStream("m-rerun"));
    // The earlier attempt's logged events, then the re-run's from 2 + RUN_EVENT_UNLOGGED_LIMIT + 1.
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1, 2, ...chunks.slice(3).map((_, i) => 3 + RUN_EVENT_UNLOGGED_LIMIT + i)]);
    expect(chunks[3]).toMatchObject({ type: "run_resumed", data: { replica: "replica-b", attempt: 2 } });
    expect(tokens(chunks.slice(4)).join("")).toBe("echo: again");
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await runEvents.read(ref, -1, 1_000)).toEqual(chunks.map(({ type, data, index }) => ({ type, data, index })));
    // Resuming inside the jump loses nothing.
    expect(await collect(agent.chunkStream("m-rerun", 500))).toEqual(chunks.slice(3));
  });

  it("a replica without the run's buffer replays it from the log, and only its outcome once the log is pruned", async () => {
    const { log: runEvents, options: logging } = runEventLog(stores, withCompletion);
    const owner = manager(stores, logging);
    const ran = await collect((await owner.getAgent(thread("elsewhere")).addMessage({ message: "one two three" }, { mode: "stream", messageId: "m-1" })).stream);
    const peer = manager(stores, { ...logging, streamPollMs: 20 }).getAgent(thread("elsewhere"));

    expect(await collect(peer.chunkStream("m-1"))).toEqual(ran);
    expect(await collect(peer.chunkStream("m-1", 2))).toEqual(ran.slice(3));

    await runEvents.deleteThread(thread("elsewhere"));
    expect(await collect(peer.chunkStream("m-1", 2))).toEqual([{ messageId: "m-1", index: 3, type: "message_completed", data: { status: "success" } }]);
  });

  it("a follower that hears no notification (its LISTEN connection down) still follows the run, reading every streamPollMs", async () => {
    const { log: runEvents, options: logging } = runEventLog(stores, withCompletion);
    const deaf: RunEventLog = {
      append: runEvents.append.bind(runEvents),
      read: runEvents.read.bind(runEvents),
      lastIndex: runEvents.lastIndex.bind(runEvents),
      deleteRun: runEvents.deleteRun.bind(runEvents),
      deleteThread: runEvents.deleteThread.bind(runEvents),
      pruneOlderThan: runEvents.pruneOlderThan.bind(runEvents),
      subscribe: () => () => {},
    };
    const owner = manager(stores, logging).getAgent(thread("deaf"));
    // Queued before the follower asks for it (it would answer MESSAGE_NOT_FOUND otherwise); its events are read from the log.
    const running = await owner.addMessage({ message: "/sleep 300" }, { mode: "stream", messageId: "m-deaf" });
    const followed = collect(manager(stores, { runEvents: deaf, streamPollMs: 50 }).getAgent(thread("deaf")).chunkStream("m-deaf"));

    const ran = await collect(running.stream);
    expect(ran.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await followed).toEqual(ran);
  });
});
