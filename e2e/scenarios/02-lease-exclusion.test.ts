import { PostgreSQLTaskStore } from "@axiom-lattice/pg-stores";
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import type { Replica } from "../harness/replica";

const TENANT = "default";
const ASSISTANT = "writer";
const PROJECT = "launch";
const TASKS = 24;

/** One pass of the project task machine, as a replica logged it. */
interface MachinePass {
  replicaId: string;
  taskId: string;
  outcome: string;
  fencingToken: bigint;
  enteredAt: number;
  leftAt: number;
}

/** Every machine pass the replicas logged so far, in the order they entered the machine. */
function machinePasses(replicas: Replica[]): MachinePass[] {
  return replicas
    .flatMap((replica) =>
      replica
        .logLines()
        .filter((line) => line.phase === "project_task_machine")
        .map((line) => ({
          replicaId: replica.replicaId,
          taskId: String(line.taskId),
          outcome: String(line.outcome),
          fencingToken: BigInt(String(line.fencingToken)),
          enteredAt: Date.parse(String(line.enteredAt)),
          leftAt: Date.parse(String(line.leftAt)),
        })),
    )
    .sort((a, b) => a.enteredAt - b.enteredAt);
}

/** Indexes in a random order, each of `count` replicas at least once (the race must span all of them). */
function spreadAcross(count: number, items: number): number[] {
  const indexes = Array.from({ length: items }, (_, i) => i % count);
  for (let i = indexes.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
  }
  return indexes;
}

describe("scenario 2: project task machine exclusion across replicas", () => {
  const cluster = useCluster();

  it("passes of one machine never overlap across 3 processes, tokens grow, every task runs once, a stale token is refused", async () => {
    // Debug level: each machine pass logs when it entered and left the machine, and under which token.
    const replicas = await cluster.start(3, { env: { LOG_LEVEL: "debug" } });
    const [first] = replicas;
    await expectOk(call(first.url, "POST", "/api/assistants", { id: ASSISTANT, name: "Writer" }), 201);
    await expectOk(call(first.url, "POST", "/api/projects", { id: PROJECT, name: "Launch" }), 201);
    await expectOk(call(first.url, "PUT", `/api/projects/${PROJECT}/bots/${ASSISTANT}`));
    const taskIds = Array.from({ length: TASKS }, (_, i) => `task-${i}`);
    await Promise.all(
      taskIds.map((id) =>
        expectOk(call(first.url, "POST", "/api/tasks", { id, title: id, description: `text of ${id}`, owner_type: "agent", owner_id: ASSISTANT, project_id: PROJECT }), 201),
      ),
    );

    // All at once, each through a random replica: every replica's machine races for the one lease.
    const targets = spreadAcross(replicas.length, TASKS);
    await Promise.all(taskIds.map((id, i) => expectOk(call(replicas[targets[i]].url, "POST", `/api/tasks/${id}/dispatch`))));

    await eventually(
      async () => {
        const { tasks } = await expectOk<{ tasks: Array<{ status: string }> }>(call(first.url, "GET", `/api/tasks?project_id=${PROJECT}`));
        return tasks.length === TASKS && tasks.every((task) => task.status === "completed") ? true : undefined;
      },
      90_000,
      "every dispatched task completed",
    );
    for (const id of taskIds) {
      const task = await expectOk<{ status: string; result: unknown }>(call(first.url, "GET", `/api/tasks/${id}`));
      expect(task).toMatchObject({ status: "completed", result: `echo: text of ${id}` });
      // A task settles just before its run's record completes.
      const runs = await eventually(
        async () => {
          const listed = (await expectOk<{ runs: RunRecord[] }>(call(first.url, "GET", `/api/tasks/${id}/runs`))).runs;
          return listed.every((run) => run.finished_at) ? listed : undefined;
        },
        5_000,
        `${id}'s run to finish`,
      );
      expect(runs.map((run) => run.status)).toEqual(["success"]);
    }

    const passes = machinePasses(replicas);
    // Every task was started by a pass; peers' passes on a started task are logged too.
    expect(new Set(passes.filter((pass) => pass.outcome === "started").map((pass) => pass.taskId))).toEqual(new Set(taskIds));
    expect(new Set(passes.map((pass) => pass.replicaId))).toEqual(new Set(replicas.map((replica) => replica.replicaId)));
    for (let i = 1; i < passes.length; i++) {
      const [before, after] = [passes[i - 1], passes[i]];
      expect(before.leftAt, `pass ${i - 1} (${before.replicaId}) left after pass ${i} (${after.replicaId}) entered`).toBeLessThanOrEqual(after.enteredAt);
      expect(before.fencingToken, `token of pass ${i} (${after.replicaId}) not above pass ${i - 1}'s (${before.replicaId})`).toBeLessThan(after.fencingToken);
    }

    // A writer whose lease was taken over, arriving late: its older token is refused, the task kept.
    const store = new PostgreSQLTaskStore({ poolConfig: (await cluster.database()).url });
    try {
      const settled = (await store.getTask(TENANT, taskIds[0]))!;
      expect(settled.fencingToken).toBeDefined();
      const current = settled.fencingToken!;
      const stale = (BigInt(current) - 1n).toString();
      await expect(store.updateTask(TENANT, settled.id, { title: "stale write" }, { fencingToken: stale })).rejects.toMatchObject({ code: "LEASE_LOST" });
      expect(await store.getTask(TENANT, settled.id)).toEqual(settled);
      const written = await store.updateTask(TENANT, settled.id, { title: "current write" }, { fencingToken: current });
      expect(written).toMatchObject({ title: "current write", fencingToken: current });
    } finally {
      await store.dispose();
    }
  });
});
