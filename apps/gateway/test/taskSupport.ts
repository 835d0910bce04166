// What the task tests share: waiting for a task or a thread's runs, and gateways on one database.
import type { PendingMessage } from "@axiom-lattice/core";
import type { TaskItem, TaskStore, UnitOfWork } from "@axiom-lattice/protocols";
import { type SimulatedCrash, type TestDatabase, eventually, runRecords } from "@axiom-lattice/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { buildTestGateway, createMigratedTestDatabase, type TestGateway } from "./support";

export const TENANT = "default";

/** The task as stored, once `done` says it is (within 20 s: a loaded CI machine once took over 10 s for a run across replicas). */
export async function taskWhen(gateway: Pick<TestGateway, "context">, id: string, done: (task: TaskItem) => boolean): Promise<TaskItem> {
  let task: TaskItem | null = null;
  await eventually(`task ${id} to settle`, async () => {
    task = await gateway.context.stores.tasks.getTask(TENANT, id);
    return task !== null && done(task);
  }, { timeoutMs: 20_000 });
  return task as unknown as TaskItem;
}

export const ended = (task: TaskItem) => !["pending", "in_progress"].includes(task.status);

/** The thread's run records, once there are `count` (a task settles just before its run's record completes). */
export async function runsOf(gateway: Pick<TestGateway, "context">, assistantId: string, threadId: string, count: number) {
  let runs: PendingMessage[] = [];
  await eventually(`${count} runs on ${threadId}`, async () => {
    runs = await runRecords(gateway.context.stores.queue, { tenantId: TENANT, assistantId, threadId });
    return runs.length >= count;
  });
  return runs;
}

/** Gateways (replicas) on one fresh PostgreSQL database, each closed after its test. */
export function useReplicas() {
  let database: TestDatabase;
  const gateways: Array<Awaited<ReturnType<typeof buildTestGateway>>> = [];
  beforeAll(async () => {
    database = await createMigratedTestDatabase();
  });
  afterEach(async () => {
    for (const { app, context } of gateways.splice(0)) {
      await app.close();
      await context.close();
    }
  });
  afterAll(() => database.drop());
  return async (id: string, env: Record<string, string> = {}, started = true) => {
    const built = await buildTestGateway({ DATABASE_URL: database.url, AXIOM_REPLICA_ID: id, ...env }, { started });
    gateways.push(built);
    const post = (url: string, payload: unknown) =>
      built.app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
    return { ...built, post };
  };
}

/**
 * `tasks` as a replica that dies (as under SIGKILL) the moment its write of a task to `in_progress` is
 * stored: nothing more of it reaches the database.
 */
/**
 * `unitOfWork` as a replica that dies (as under SIGKILL) the moment a unit of work that wrote a task
 * to `in_progress` (and announced it) commits: nothing more of it reaches the database.
 */
export function killedAfterInProgressCommit(crash: SimulatedCrash, unitOfWork: UnitOfWork): UnitOfWork {
  const store = crash.wrap(unitOfWork);
  return {
    inTransaction: async (fn) => {
      const result = await store.inTransaction(fn);
      if ((result as Partial<TaskItem> | null)?.status === "in_progress") crash.kill();
      return result;
    },
  };
}

export function killedAfterInProgressWrite(crash: SimulatedCrash, tasks: TaskStore): TaskStore {
  const store = crash.wrap(tasks);
  return Object.assign(Object.create(store) as TaskStore, {
    updateIfSnapshot: async (...args: Parameters<TaskStore["updateIfSnapshot"]>) => {
      const written = await store.updateIfSnapshot(...args);
      if (written?.status === "in_progress") crash.kill();
      return written;
    },
  });
}
