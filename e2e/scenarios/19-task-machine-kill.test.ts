import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { holderReplicaId } from "../harness/runLeases";

const RUN_LEASE_MS = 3_000;
const MACHINE_KEY = "project-task-machine:default:worker:launch";

interface Task {
  id: string;
  status: string;
  result?: unknown;
}

describe("scenario 19: a replica killed inside a project task machine pass", () => {
  const cluster = useCluster();

  it("kill -9 right after a task went in_progress, machine lease held: the survivors answer dispatches at once and start the tasks within one run lease", async () => {
    const replicas = await cluster.start(3, { env: { AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS) }, prefix: "machine" });
    const [first] = replicas;
    await expectOk(call(first.url, "POST", "/api/assistants", { id: "worker", name: "worker" }), 201);
    await expectOk(call(first.url, "POST", "/api/projects", { id: "launch", name: "Launch" }), 201);
    await expectOk(call(first.url, "PUT", "/api/projects/launch/bots/worker"));
    const create = (id: string, url = first.url) =>
      expectOk(call(url, "POST", "/api/tasks", { id, title: id, description: `do ${id}`, owner_type: "agent", owner_id: "worker", project_id: "launch" }), 201);

    // The aim: no replica may queue a message while the operator's session holds this lock, so the
    // pass that wins the machine writes in_progress, then waits on its enqueue, holding the machine.
    const db = await cluster.sql();
    const blocker = await db.connect();
    let victimId: string;
    let killedAt: number;
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE lattice_thread_message_queue IN SHARE MODE");
      await create("doomed");
      const dispatched = call(first.url, "POST", "/api/tasks/doomed/dispatch");
      const holder = await eventually(
        async () => {
          const { rows } = await db.query<{ status: string }>("SELECT status FROM lattice_tasks WHERE id = 'doomed'");
          if (rows[0]?.status !== "in_progress") return undefined;
          const lease = await db.query<{ holder: string }>("SELECT holder FROM lattice_leases WHERE key = $1 AND expires_at > now()", [MACHINE_KEY]);
          return lease.rows[0]?.holder;
        },
        20_000,
        "the pass to write in_progress, holding the machine",
      );
      // The dispatch answered at once, though the pass it announced is stuck holding the machine.
      await expectOk(dispatched);
      victimId = holderReplicaId(holder);
      const victim = replicas.find((replica) => replica.replicaId === victimId)!;
      await victim.stop("SIGKILL");
      killedAt = Date.now();
    } finally {
      await blocker.query("ROLLBACK");
      blocker.release();
    }
    const survivors = replicas.filter((replica) => replica.replicaId !== victimId);
    const { rows: held } = await db.query<{ holder: string }>("SELECT holder FROM lattice_leases WHERE key = $1 AND expires_at > now()", [MACHINE_KEY]);
    expect(held.map((row) => holderReplicaId(row.holder))).toEqual([victimId]);

    // Every dispatch for the bot, on every survivor, answers at once.
    const ids = ["after-1", "after-2", "after-3", "after-4"];
    const answerMs: number[] = [];
    for (const [index, id] of ids.entries()) {
      const survivor = survivors[index % survivors.length]!;
      await create(id, survivor.url);
      const startedAt = Date.now();
      expect(await expectOk<Task>(call(survivor.url, "POST", `/api/tasks/${id}/dispatch`))).toMatchObject({ status: "pending" });
      answerMs.push(Date.now() - startedAt);
    }
    console.log(`dispatch answers (ms): ${answerMs.join(", ")}`);
    expect(Math.max(...answerMs)).toBeLessThan(1_000);

    // They start once the dead replica's machine lease lapsed: within one run lease of the kill (its
    // last renewal may have just preceded it), plus a waiting pass's retry delay (at most 1 s), plus the
    // passes that start them one after the other on a loaded machine.
    const startMs = await Promise.all(
      ids.map((id) =>
        eventually(
          async () => ((await expectOk<Task>(call(survivors[0]!.url, "GET", `/api/tasks/${id}`))).status === "pending" ? undefined : Date.now() - killedAt),
          RUN_LEASE_MS + 5_000,
          `${id} to start`,
        ),
      ),
    );
    console.log(`tasks started after the kill (ms): ${startMs.join(", ")}`);
    expect(Math.max(...startMs)).toBeLessThan(RUN_LEASE_MS + 3_000);

    // Every task completes, once: the doomed one too (its run was never queued; the admissions sweep queues it).
    for (const id of ["doomed", ...ids]) {
      const done = await eventually(
        async () => {
          const task = await expectOk<Task>(call(survivors[0]!.url, "GET", `/api/tasks/${id}/result`));
          return task.status === "completed" ? task : undefined;
        },
        RUN_LEASE_MS * 3 + 5_000,
        `${id} to complete`,
      );
      expect(done).toMatchObject({ result: `echo: do ${id}` });
      // A task settles just before its run's record completes.
      const runs = await eventually(
        async () => {
          const listed = (await expectOk<{ runs: RunRecord[] }>(call(survivors[0]!.url, "GET", `/api/tasks/${id}/runs`))).runs;
          return listed.every((run) => run.finished_at) ? listed : undefined;
        },
        5_000,
        `${id}'s run to finish`,
      );
      expect(runs.map((run) => run.status)).toEqual(["success"]);
    }
  });
});
