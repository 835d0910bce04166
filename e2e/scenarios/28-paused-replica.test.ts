// A replica paused (SIGSTOP: a long GC pause, a frozen VM, a throttled container) past its run lease,
// at the worst moments at once, while its peers take its work over; then resumed (SIGCONT). Its
// overdue timers and the promises behind them run before anything tells it that it lost its leases,
// and every write they start must be refused by its fence: once it wakes, nothing changes.
import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { CheckpointBlocker } from "../harness/checkpointBlocker";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import type { Replica } from "../harness/replica";
import { holderReplicaId } from "../harness/runLeases";
import { dripping, runLog } from "../harness/runStreams";
import { ASSISTANT, createThreads, runTurn } from "../harness/workloads";

const SHORT_LEASE_MS = 3_000;
/**
 * Peers leave a new message to the replica that took it for this long, rather than 100 ms: the
 * messages sent to the replica about to be paused must be its own, however busy a file running beside
 * this one makes the machine.
 */
const PEER_WAKE_DELAY_MS = "5000";
const DEFAULT_LEASE_MS = 30_000;
/** How long the woken replica is watched for a change it should not make. */
const WATCH_MS = 3_000;

/** The plain threads, each with the moment its first message is paused at. */
const THREADS = {
  /** Inside the model call: a long `/sleep`. */
  modelCall: "inside-model-call",
  /** The model answered; the checkpoint holding the answer has not committed. */
  answered: "answered-not-checkpointed",
  /** Streaming, with a batch of its events waiting to flush. */
  flushing: "events-waiting-to-flush",
};
const FIRST: Record<string, string> = {
  [THREADS.modelCall]: "/sleep 4000",
  [THREADS.answered]: "answered before the pause",
  [THREADS.flushing]: dripping(100, 50),
};
const TASK = "settling";
const TASK_THREAD_LEASE = `thread-run:default:worker:task-${TASK}`;

const sendTo = (replica: Replica, threadId: string, message: string, messageId: string) =>
  expectOk(call(replica.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: threadId, message, message_id: messageId, mode: "queue" }), 202);

/** Everything a woken replica could still change: every queue row, each first run's log, each conversation, the task. */
async function snapshot(pool: Pool, url: string, taskRunId: string) {
  const queue = await pool.query("SELECT id, status, run_status, replica_id, error, finished_at FROM lattice_thread_message_queue ORDER BY id");
  const logs = await Promise.all([...Object.values(THREADS).map((threadId) => `${threadId}-1`), taskRunId].map((messageId) => runLog(pool, messageId)));
  const states = await Promise.all(Object.values(THREADS).map((threadId) => expectOk(call(url, "GET", `/api/threads/${threadId}/state`))));
  const task = await expectOk(call(url, "GET", `/api/tasks/${TASK}`));
  const checkpoints = await pool.query("SELECT thread_id, checkpoint_id FROM checkpoints ORDER BY thread_id, checkpoint_id");
  return { queue: queue.rows, logs, states, task, checkpoints: checkpoints.rows };
}

/** The backend of the task's settlement once it waits on the operator's lock of the tasks table. */
const settlementWaiting = async (pool: Pool) =>
  (
    await pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%FROM lattice_tasks%FOR UPDATE%'`,
    )
  ).rows[0]?.pid;

describe("scenario 28: a replica paused past its lease changes nothing when it wakes", () => {
  const cluster = useCluster();

  it.each([
    ["a short run lease", SHORT_LEASE_MS, { AXIOM_RUN_LEASE_MS: String(SHORT_LEASE_MS), AXIOM_PEER_WAKE_DELAY_MS: PEER_WAKE_DELAY_MS }],
    ["the default run lease", DEFAULT_LEASE_MS, { AXIOM_PEER_WAKE_DELAY_MS: PEER_WAKE_DELAY_MS }],
  ])(
    "with %s, 3 replicas: paused inside a model call, after an answer before its checkpoint, with events waiting to flush and in a project task's settlement",
    async (_, leaseMs, env) => {
      const replicas = await cluster.start(3, { env, prefix: "paused" });
      const pool = await cluster.sql();
      const [entry] = replicas;
      await createThreads(entry.url, Object.values(THREADS));
      await expectOk(call(entry.url, "POST", "/api/assistants", { id: "worker", name: "worker" }), 201);
      await expectOk(call(entry.url, "POST", "/api/projects", { id: "launch", name: "Launch" }), 201);
      await expectOk(call(entry.url, "PUT", "/api/projects/launch/bots/worker"));
      const blocker = await CheckpointBlocker.install(pool);

      // The project task's run ends while the operator holds the tasks table: its settlement waits, its fence taken.
      await expectOk(call(entry.url, "POST", "/api/tasks", { id: TASK, title: TASK, description: "/sleep 1500", owner_type: "agent", owner_id: "worker", project_id: "launch" }), 201);
      await expectOk(call(entry.url, "POST", `/api/tasks/${TASK}/dispatch`));
      const paused = await eventually(
        async () => {
          const { rows } = await pool.query<{ holder: string }>("SELECT holder FROM lattice_leases WHERE key = $1 AND expires_at > now()", [TASK_THREAD_LEASE]);
          return rows[0] && replicas.find((replica) => replica.replicaId === holderReplicaId(rows[0]!.holder));
        },
        30_000,
        "the task's run to start",
      );
      const tasksLock = await pool.connect();
      await tasksLock.query("BEGIN");
      await tasksLock.query("LOCK TABLE lattice_tasks IN EXCLUSIVE MODE");
      let pausedAt = 0;
      try {
        await eventually(() => settlementWaiting(pool), 30_000, "the task's settlement to wait on the tasks table");
        await blocker.holdCheckpoint(`echo: ${FIRST[THREADS.answered]}`, {
          send: () => sendTo(paused, THREADS.answered, FIRST[THREADS.answered]!, `${THREADS.answered}-1`),
          run: async () => {
            await sendTo(paused, THREADS.modelCall, FIRST[THREADS.modelCall]!, `${THREADS.modelCall}-1`);
            await sendTo(paused, THREADS.flushing, FIRST[THREADS.flushing]!, `${THREADS.flushing}-1`);
            await eventually(
              async () => {
                const { rows } = await pool.query<{ id: string; replica_id: string }>(
                  "SELECT id, replica_id FROM lattice_thread_message_queue WHERE status = 'processing' AND id = ANY($1)",
                  [Object.values(THREADS).map((threadId) => `${threadId}-1`)],
                );
                const flushed = (await runLog(pool, `${THREADS.flushing}-1`)).length;
                return rows.length === 3 && flushed >= 3 ? rows : undefined;
              },
              30_000,
              "the paused replica to run all three, some events of the stream logged",
            ).then((rows) => expect(rows.map((row) => row.replica_id)).toEqual([paused.replicaId, paused.replicaId, paused.replicaId]));
            paused.pause();
            pausedAt = Date.now();
          },
        });
      } finally {
        await tasksLock.query("ROLLBACK");
        tasksLock.release();
      }

      // The peers take everything over once the leases lapse, and answer the next turn of every thread.
      const peer = replicas.find((replica) => replica !== paused)!;
      const bound = leaseMs * 2 + 30_000;
      for (const threadId of Object.values(THREADS)) {
        await eventually(
          async () => {
            const { runs } = await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", `/api/threads/${threadId}/runs`));
            return runs[0]?.status === "success" ? true : undefined;
          },
          bound,
          `the peers to finish ${threadId}'s first message`,
        );
        await runTurn(peer.url, threadId, "second", `${threadId}-2`);
      }
      const task = await eventually(
        async () => {
          const read = await expectOk<{ status: string; result?: unknown }>(call(peer.url, "GET", `/api/tasks/${TASK}`));
          return read.status === "completed" ? read : undefined;
        },
        bound,
        "the peers to settle the task",
      );
      expect(task.result).toBe("echo: /sleep 1500");
      const [taskRun] = (await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", `/api/tasks/${TASK}/runs`))).runs;
      // The pause outlasted the lease: the peers' work is a takeover, not the paused replica finishing in time.
      expect(Date.now() - pausedAt).toBeGreaterThan(leaseMs);

      // It wakes: its overdue work runs, each write it tries is refused, and it lets go. Nothing changes.
      const before = await snapshot(pool, peer.url, taskRun!.message_id);
      paused.resume();
      await eventually(async () => (/"msg":"lease lost/.test(paused.logs) ? true : undefined), 30_000, "the woken replica to learn it lost its leases");
      const watchedUntil = Date.now() + WATCH_MS;
      while (Date.now() < watchedUntil) {
        expect(await snapshot(pool, peer.url, taskRun!.message_id)).toEqual(before);
        await sleep(250);
      }

      // Every turn the cluster answered is in its thread once, in order; the woken replica serves the next.
      for (const threadId of Object.values(THREADS)) {
        const conversation = await runTurn(paused.url, threadId, "third", `${threadId}-3`);
        const first = FIRST[threadId]!;
        expect(conversation).toEqual([first, `echo: ${first}`, "second", "echo: second", "third", "echo: third"]);
        const logged = await runLog(pool, `${threadId}-1`);
        expect(logged.filter((event) => event.type === "message_completed")).toHaveLength(1);
        expect(logged.at(-1)?.type).toBe("message_completed");
      }
      expect((await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", `/api/tasks/${TASK}/runs`))).runs.map((run) => run.status)).toEqual(["success"]);
    },
    240_000,
  );
});
