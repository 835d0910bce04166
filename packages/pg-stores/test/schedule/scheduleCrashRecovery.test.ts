// Crash recovery across processes: a replica SIGKILLed between claim and completion leaves its fire
// `running`; a restarted replica's restore() requeues it and runs the fire again. A live replica's
// long run heartbeats, so another replica's restore() leaves it alone.
import { eventually } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { Child } from "../support/children";
import { firesOf, recordFireTask, useFireDatabase } from "./support";

const db = useFireDatabase("lattice_schedule_crash");

/** Whether the task's row was last written more than `ms` ago, by the database clock. */
async function untouchedFor(taskId: string, ms: number): Promise<boolean> {
  const { rows } = await db.pool.query<{ old: boolean }>(
    "SELECT updated_at < now() - $2 * interval '1 millisecond' AS old FROM lattice_scheduled_tasks WHERE task_id = $1",
    [taskId, ms],
  );
  return rows[0].old;
}

describe("schedule crash recovery across processes", { timeout: 60_000 }, () => {
  it("a process killed between claim and completion leaves the task running; a restart's restore() requeues it and the fire runs again", async () => {
    const taskId = "crashed";
    const executeAt = Date.now() + 1_500;
    await db.store.save(recordFireTask(taskId, { executionType: "once", executeAt }));

    const doomed = new Child("scheduleReplica.mjs", { url: db.database.url, replica: "doomed", mode: "hang" });
    await doomed.next("READY");
    expect(await doomed.next("STARTED")).toEqual({ taskId, scheduledAt: executeAt });
    doomed.kill("SIGKILL");
    expect((await doomed.outcome()).signal).toBe("SIGKILL");
    expect((await db.store.get(taskId))?.status).toBe("running");

    // Past the restarted replica's threshold by the database clock, so its restore() must requeue.
    await eventually("the claim to age past 600 ms", () => untouchedFor(taskId, 600));
    const restarted = new Child("scheduleReplica.mjs", { url: db.database.url, replica: "restarted", staleRunningMs: 500 });
    expect(await restarted.next("READY")).toEqual({ requeued: 1, armed: 1 });
    await eventually("the fire to run again", async () => (await firesOf(db.pool, "fires", taskId)).length === 1);

    expect(await firesOf(db.pool, "fires", taskId)).toEqual([{ fireAt: executeAt, replica: "restarted" }]);
    // At-least-once after a crash: the same fire started twice, once on each process.
    expect(await firesOf(db.pool, "handler_starts", taskId)).toEqual([
      { fireAt: executeAt, replica: "doomed" },
      { fireAt: executeAt, replica: "restarted" },
    ]);
    await eventually("the task to complete", async () => (await db.store.get(taskId))?.status === "completed");
    restarted.go();
    await restarted.result();
  });

  it("a live long-running handler keeps its claim fresh: another process's restore() does not requeue it", async () => {
    const taskId = "long-running";
    const executeAt = Date.now() + 1_500;
    await db.store.save(recordFireTask(taskId, { executionType: "once", executeAt }));

    const worker = new Child("scheduleReplica.mjs", { url: db.database.url, replica: "worker", handlerMs: 5_000, heartbeatIntervalMs: 200 });
    await worker.next("READY");
    await worker.next("STARTED");
    const claimed = (await db.store.get(taskId))!;
    expect(claimed.status).toBe("running");
    // Wait until the run is older than the other replica's threshold (by the database clock)...
    await eventually("the run to outlast the 1500 ms threshold", async () => {
      const { rows } = await db.pool.query<{ old: boolean }>(
        "SELECT min(started_at) < now() - interval '2000 milliseconds' AS old FROM handler_starts WHERE task_id = $1",
        [taskId],
      );
      return rows[0].old;
    });
    // ...while its heartbeat has kept updated_at recent.
    expect((await db.store.get(taskId))!.updatedAt).toBeGreaterThan(claimed.updatedAt);

    const other = new Child("scheduleReplica.mjs", { url: db.database.url, replica: "other", staleRunningMs: 1_500 });
    expect(await other.next("READY")).toEqual({ requeued: 0, armed: 0 });
    await eventually("the long run to finish", async () => (await db.store.get(taskId))?.status === "completed", { timeoutMs: 15_000 });

    expect(await firesOf(db.pool, "handler_starts", taskId)).toEqual([{ fireAt: executeAt, replica: "worker" }]);
    expect(await firesOf(db.pool, "fires", taskId)).toEqual([{ fireAt: executeAt, replica: "worker" }]);
    for (const child of [worker, other]) child.go();
    await Promise.all([worker.result(), other.result()]);
  });
});
