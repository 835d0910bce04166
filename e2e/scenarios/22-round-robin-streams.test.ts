import type { Pool } from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { killBeforeRunEventFlush, killRightAfterRunEventFlush } from "../harness/aimedKills";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import type { Replica } from "../harness/replica";
import {
  type LoggedEvent,
  type RunStream,
  answerOf,
  asLogged,
  dripping,
  finishedRunLog,
  indexOf,
  resumeElsewhere,
  resumeRun,
  runningReplica,
  streamRun,
} from "../harness/runStreams";
import { createThreads } from "../harness/workloads";

// Issue 23: no affinity routing. Every request goes through the documented nginx with no affinity
// header, so round-robin lands streams and resumes on any replica; the run event log (PostgreSQL)
// serves them all under the owner's ids. Then the owner is SIGKILLed mid-stream, at aimed moments.

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";

/** Short enough that a peer takes a dead owner's run over within seconds. */
const RUN_LEASE_MS = "3000";

/** A stream's events, as logged events. */
const carried = (stream: RunStream): LoggedEvent[] => stream.follower.events.map(asLogged);

/** Every logged event after the stream's position, once, in order, and nothing else: what a stream must carry. */
function expectWhole(stream: RunStream, logged: LoggedEvent[]): void {
  expect(carried(stream)).toEqual(logged.filter((event) => event.index > stream.after));
}

const increasing = (indexes: number[]) => indexes.every((index, i) => i === 0 || index > indexes[i - 1]);

/** The run record of the message, once it finished. */
async function finishedRun(url: string, threadId: string, messageId: string): Promise<RunRecord> {
  return eventually(
    async () => {
      const { runs } = await expectOk<{ runs: RunRecord[] }>(call(url, "GET", `/api/threads/${threadId}/runs`));
      const run = runs.find((candidate) => candidate.message_id === messageId);
      return run?.finished_at ? run : undefined;
    },
    60_000,
    `${messageId} finished`,
  );
}

describe.skipIf(nginxMissing)("scenario 22: streams behind a round-robin balancer, no affinity header", () => {
  const cluster = useCluster();
  let balancer: LoadBalancer | undefined;
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  afterEach(async () => {
    await balancer?.stop();
    balancer = undefined;
    if (lines.length > 0) console.info(lines.splice(0).join("\n"));
  });

  const behindBalancer = async (env: Record<string, string> = {}) => {
    const replicas = await cluster.start(3, { env });
    balancer = await LoadBalancer.start(replicas);
    return { replicas, lb: balancer.url, pool: await cluster.sql() };
  };

  it("with the default settings, every stream and resume, on whichever replica it lands, carries every event once, in order, to message_completed", async () => {
    const { lb, pool } = await behindBalancer();
    const threads = Array.from({ length: 6 }, (_, i) => `rr-${i}`);
    await createThreads(lb, threads);
    const text = dripping(15, 30);

    const perThread = await Promise.all(
      threads.map(async (threadId) => {
        const run = { threadId, messageId: `${threadId}-m` };
        const posted = await streamRun(lb, threadId, run.messageId, text);
        // Joined while the run streams: from the start, after an index in the body, after a Last-Event-ID.
        const live = [posted, await resumeRun(lb, run), await resumeRun(lb, { ...run, after: 4 }), await resumeRun(lb, { ...run, lastEventId: `${run.messageId}:7` })];
        await Promise.all(live.map((stream) => stream.follower.ended));
        // And replayed once it ended.
        const late = await resumeRun(lb, { ...run, lastEventId: `${run.messageId}:2` });
        await late.follower.ended;
        const owner = (await finishedRun(lb, threadId, run.messageId)).replica_id;
        return { streams: [...live, late], logged: await finishedRunLog(pool, run.messageId), owner };
      }),
    );

    for (const { streams, logged } of perThread) {
      expect(logged.at(-1)).toMatchObject({ type: "message_completed" });
      expect(answerOf(streams[0].follower.events)).toBe(`echo: ${text}`);
      for (const stream of streams) expectWhole(stream, logged);
    }
    // Round-robin spread them: served by every replica, many by one that did not run the message (two
    // in three on average; concurrent requests interleave at the balancer, so a run of 30 drifts around that).
    const streams = perThread.flatMap(({ streams, owner }) => streams.map((stream) => ({ servedBy: stream.replicaId, owner })));
    expect(new Set(streams.map((stream) => stream.servedBy)).size).toBe(3);
    expect(streams.filter((stream) => stream.servedBy !== stream.owner).length).toBeGreaterThanOrEqual(streams.length / 3);
  });

  /**
   * What a kill of the run's owner must leave: the follower on another replica carried the whole log,
   * the dead attempt's logged events, then one `run_resumed` naming the new owner, then the new
   * attempt to its end; the owner's own client, resuming with Last-Event-ID through the balancer, gets
   * the rest after its last id, and no id it holds names another event in the log.
   */
  async function expectTakenOver(
    lb: string,
    pool: Pool,
    run: { threadId: string; messageId: string; text: string },
    { killed, follower, ownerClient }: { killed: Replica; follower: RunStream; ownerClient: RunStream },
  ) {
    await follower.follower.ended;
    const logged = await finishedRunLog(pool, run.messageId);
    const record = await finishedRun(lb, run.threadId, run.messageId);
    expect(record).toMatchObject({ status: "success" });
    expect(record.replica_id).not.toBe(killed.replicaId);

    expectWhole(follower, logged);
    const resumed = follower.follower.ofType("run_resumed");
    expect(resumed.map((event) => event.data)).toEqual([{ replica: record.replica_id, attempt: 2 }]);
    // A killed owner says nothing: no hand-over event, the re-run's marker is all.
    expect(follower.follower.ofType("run_handed_over")).toEqual([]);
    expect(answerOf(follower.follower.events)).toBe(`echo: ${run.text}`);

    await ownerClient.follower.ended;
    const held = carried(ownerClient);
    const lastHeld = held.at(-1)!.index;
    const rest = await resumeRun(lb, { ...run, lastEventId: `${run.messageId}:${lastHeld}` });
    await rest.follower.ended;
    expectWhole(rest, logged);
    expect(increasing([...held, ...carried(rest)].map((event) => event.index))).toBe(true);
    const byIndex = new Map(logged.map((event) => [event.index, event]));
    for (const event of held) if (byIndex.has(event.index)) expect(event).toEqual(byIndex.get(event.index));
    return { held, rest: carried(rest), logged };
  }

  /**
   * Posts the run through the balancer, then opens the owner's own client (routed to it by affinity:
   * it reads the owner's buffer) and a follower that round-robin landed on another replica.
   */
  async function followedRun(lb: string, pool: Pool, replicas: Replica[], run: { threadId: string; messageId: string; text: string }) {
    await createThreads(lb, [run.threadId]);
    const posted = await streamRun(lb, run.threadId, run.messageId, run.text);
    const ownerId = await runningReplica(pool, run.messageId);
    const ownerClient = await resumeRun(lb, run, { "x-axiom-affinity": ownerId });
    expect(ownerClient.replicaId).toBe(ownerId);
    const follower = await resumeElsewhere(lb, run, ownerId);
    return { posted, owner: replicas.find((replica) => replica.replicaId === ownerId)!, ownerClient, follower };
  }

  it("kill -9 of the owner right after a batch was logged: the follower's stream goes on with the new owner after run_resumed", async () => {
    const { replicas, lb, pool } = await behindBalancer({ AXIOM_RUN_LEASE_MS: RUN_LEASE_MS });
    const run = { threadId: "killed-after-flush", messageId: "after-flush", text: dripping(40, 80) };
    const { posted, owner, ownerClient, follower } = await followedRun(lb, pool, replicas, run);

    const loggedAtKill = await killRightAfterRunEventFlush({ pool, log }, owner, run.messageId);
    const { rest } = await expectTakenOver(lb, pool, run, { killed: owner, follower, ownerClient });
    // The new attempt's ids start past every id the dead one may have streamed.
    expect(rest.find((event) => event.type === "run_resumed")!.index).toBeGreaterThan(loggedAtKill + 1);
    void posted.follower.close();
  });

  it("kill -9 of the owner while its client holds events never logged: the client resumes after them, no id reused", async () => {
    // Batches every 2 s: the owner's buffer runs well ahead of the log, and the kill lands in between.
    const { replicas, lb, pool } = await behindBalancer({ AXIOM_RUN_LEASE_MS: RUN_LEASE_MS, AXIOM_RUN_EVENT_FLUSH_MS: "2000" });
    const run = { threadId: "killed-before-flush", messageId: "before-flush", text: dripping(40, 80) };
    const { posted, owner, ownerClient, follower } = await followedRun(lb, pool, replicas, run);

    const lastIndex = () => (ownerClient.follower.events.length > 0 ? indexOf(ownerClient.follower.events.at(-1)!) : -1);
    const loggedAtKill = await killBeforeRunEventFlush({ pool, log }, owner, run.messageId, { lastIndex }, 10);
    const { held, rest } = await expectTakenOver(lb, pool, run, { killed: owner, follower, ownerClient });
    // The aim held: the client had events the log never got, and its resume starts with the new attempt.
    expect(held.at(-1)!.index).toBeGreaterThan(loggedAtKill);
    expect(rest[0]).toMatchObject({ type: "run_resumed" });
    void posted.follower.close();
  });
});
