// Orphan recovery on real PostgreSQL: a task whose run no replica holds is failed once and its caller
// resumed once; a task some other pool (replica) still runs is never touched; the sweep runs at startup
// and in the maintenance loop when AXIOM_TASK_ORPHAN_RECOVERY=true.
import { randomUUID } from "node:crypto";
import { RecoveryActor, TaskOrphanRecovery, callerResumeMessageId, taskStartMessageId, taskThreadId } from "@axiom-lattice/agent";
import { taskRunLeaseKey, threadRunLeaseKey, tryAcquireThreadRun } from "@axiom-lattice/core";
import { PostgreSQLLeaseStore } from "@axiom-lattice/pg-stores";
import type { TaskItem, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { type TestDatabase, eventually, runRecords } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const fresh = (what: string) => `${what}-${randomUUID()}`;

const CALLER = "boss";
const WORKER = "worker";

interface Gateway {
  app: FastifyInstance;
  context: GatewayContext;
  /** Lifecycle events this gateway published (its local listeners hear them once). */
  events: TaskLifecycleEvent[];
}

const opened: Gateway[] = [];
const databases: TestDatabase[] = [];

async function database(): Promise<TestDatabase> {
  const created = await createMigratedTestDatabase();
  databases.push(created);
  return created;
}

async function gateway(url: string, env: Record<string, string> = {}, options: { started?: boolean } = {}): Promise<Gateway> {
  const built = await buildTestGateway({ DATABASE_URL: url, ...env }, options);
  const events: TaskLifecycleEvent[] = [];
  built.context.notifiers.taskLifecycle.subscribe((event) => void events.push(event));
  const opening = { ...built, events };
  opened.push(opening);
  return opening;
}

async function close(closing: Gateway): Promise<void> {
  opened.splice(opened.indexOf(closing), 1);
  await closing.app.close();
  await closing.context.close();
}

afterAll(async () => {
  await Promise.all([...opened].map(close));
  await Promise.all(databases.map((created) => created.drop()));
});

/** A delegated task in progress: `boss` waits on its thread, `worker` runs it on the task's thread. */
async function delegatedTask(context: GatewayContext, tenantId: string, overrides: Partial<TaskItem> = {}): Promise<TaskItem> {
  const id = fresh("task");
  return context.stores.tasks.createTask(tenantId, {
    id,
    ownerType: "agent",
    ownerId: WORKER,
    title: "Summarise the report",
    priority: 0,
    status: "in_progress",
    context: { caller: { assistantId: CALLER, threadId: `${id}-caller` }, run: { assistantId: WORKER, threadId: taskThreadId(id) } },
    ...overrides,
  });
}

const callerThreadOf = (task: TaskItem) => ({ tenantId: task.tenantId, assistantId: CALLER, threadId: `${task.id}-caller` });
const runThreadOf = (task: TaskItem) => ({ tenantId: task.tenantId, assistantId: WORKER, threadId: taskThreadId(task.id) });

/**
 * Ids of every message on the thread, whatever its status (queued, running, or a run record). Read in
 * the order a message moves, so one the caller's processor runs meanwhile is never missed (maybe seen
 * twice: the set keeps it once).
 */
async function messagesOn(context: GatewayContext, { tenantId, assistantId, threadId }: { tenantId: string; assistantId: string; threadId: string }): Promise<string[]> {
  const { queue } = context.stores;
  const scope = { tenantId, assistantId };
  const all = [...(await queue.getPendingMessages({ ...scope, threadId })), ...(await queue.getProcessingMessages({ ...scope, threadId })), ...(await runRecords(queue, { ...scope, threadId }))];
  return [...new Set(all.map((message) => message.id))];
}

describe("orphan recovery of one task (recoverTask)", () => {
  let db: TestDatabase;
  let a: Gateway;
  let b: Gateway;
  /** Another process's lease store: its own pool on the same database. */
  let peerLeases: PostgreSQLLeaseStore;

  beforeAll(async () => {
    db = await database();
    a = await gateway(db.url, { AXIOM_REPLICA_ID: "gw-a" });
    b = await gateway(db.url, { AXIOM_REPLICA_ID: "gw-b" });
    peerLeases = new PostgreSQLLeaseStore({ poolConfig: db.url });
  });
  afterAll(() => peerLeases.dispose());

  const recoverOnA = (task: TaskItem, actor: RecoveryActor = RecoveryActor.SWEEP) =>
    a.context.tasks.recovery.recoverTask({ tenantId: task.tenantId, taskId: task.id }, actor);

  it("leaves a task whose run is queued but not claimed yet alone; once a dead replica's claim of it lapsed, converges it", async () => {
    const tenant = fresh("tenant");
    const task = await delegatedTask(a.context, tenant);
    const run = runThreadOf(task);
    const scope = { tenantId: tenant, assistantId: WORKER };
    const { queue } = a.context.stores;
    await queue.addMessage({ id: taskStartMessageId(task), threadId: run.threadId, scope, content: { message: "go", task: { taskId: task.id } } });

    expect(await recoverOnA(task)).toBe("skipped:queued");
    expect(await a.context.stores.tasks.getTask(tenant, task.id)).toMatchObject({ status: "in_progress", updatedAt: task.updatedAt });
    expect(await messagesOn(a.context, callerThreadOf(task))).toEqual([]);

    expect(await queue.claimPendingMessages({ ...scope, threadId: run.threadId }, { owner: "dead-replica#1", leaseMs: 1 })).toHaveLength(1);
    expect(await recoverOnA(task)).toBe("converged");
    expect(await messagesOn(a.context, run)).toEqual([]);
  });

  it("converges an orphan once: failed by the actor, one event, one resume of the caller, the dead run's messages gone", async () => {
    const tenant = fresh("tenant");
    const task = await delegatedTask(a.context, tenant);
    const run = runThreadOf(task);
    const { queue } = a.context.stores;
    // The dead replica's run: its message claimed under a claim that lapsed, and one more queued behind it.
    await queue.addMessage({ id: `${task.id}-start`, threadId: run.threadId, scope: { tenantId: tenant, assistantId: WORKER }, content: { message: "go" } });
    await queue.addMessage({ id: `${task.id}-next`, threadId: run.threadId, scope: { tenantId: tenant, assistantId: WORKER }, content: { message: "more" } });
    expect(await queue.claimPendingMessages({ tenantId: tenant, assistantId: WORKER, threadId: run.threadId }, { owner: "dead-replica#1", leaseMs: 1 })).toHaveLength(1);

    expect(await recoverOnA(task)).toBe("converged");

    const failed = await a.context.stores.tasks.getTask(tenant, task.id);
    expect(failed).toMatchObject({
      status: "failed",
      failureReason: expect.stringContaining("Orphaned"),
      context: { ...task.context, recovered_by: "system:orphan-recovery" },
    });
    const eventsOf = () => a.events.filter((event) => event.tenantId === tenant);
    expect(eventsOf()).toEqual([expect.objectContaining({ tenantId: tenant, taskId: task.id, status: "failed", failureReason: failed?.failureReason })]);
    expect(await messagesOn(a.context, callerThreadOf(task))).toEqual([callerResumeMessageId(task.id)]);
    const resume = await queue.getMessage(callerResumeMessageId(task.id), { tenantId: tenant, assistantId: CALLER });
    expect(resume?.content).toEqual({ command: { resume: { taskId: task.id, status: "failed", failureReason: failed?.failureReason } } });
    expect(await messagesOn(a.context, run)).toEqual([]);

    // Again: nothing left to do, nothing added.
    expect(await recoverOnA(task)).toBe("skipped:not_in_progress");
    expect(await a.context.stores.tasks.getTask(tenant, task.id)).toEqual(failed);
    expect(eventsOf()).toHaveLength(1);
    expect(await messagesOn(a.context, callerThreadOf(task))).toEqual([callerResumeMessageId(task.id)]);
  });

  it("never touches a task whose thread-run lease another pool holds, nor one whose task-run lease it holds", async () => {
    const tenant = fresh("tenant");
    const byThread = await delegatedTask(a.context, tenant);
    const byTaskLease = await delegatedTask(a.context, tenant);
    const held = await tryAcquireThreadRun(runThreadOf(byThread), { store: peerLeases, replicaId: "gw-peer", logger: a.context.logger });
    expect(held).not.toBeNull();
    expect(await peerLeases.tryAcquire(taskRunLeaseKey(byTaskLease.id), "gw-peer#run", 60_000)).toBe(true);
    try {
      for (const task of [byThread, byTaskLease]) {
        expect(await recoverOnA(task)).toBe("skipped:live");
        expect(await recoverOnA(task, RecoveryActor.ON_DEMAND)).toBe("skipped:live");
      }
      const counts = await a.context.tasks.recovery.recoverOrphanedTasks(RecoveryActor.SWEEP);
      expect(counts["skipped:live"]).toBeGreaterThanOrEqual(2);
      expect(await a.context.stores.tasks.getTask(tenant, byThread.id)).toEqual(byThread);
      expect(await a.context.stores.tasks.getTask(tenant, byTaskLease.id)).toEqual(byTaskLease);
      expect(await messagesOn(a.context, callerThreadOf(byThread))).toEqual([]);
      expect(await messagesOn(a.context, callerThreadOf(byTaskLease))).toEqual([]);
    } finally {
      await held?.release();
      await peerLeases.release(taskRunLeaseKey(byTaskLease.id), "gw-peer#run");
    }
    // Released: now they are orphans.
    expect(await recoverOnA(byThread)).toBe("converged");
    expect(await recoverOnA(byTaskLease)).toBe("converged");
  });

  it("counts a liveness probe that fails as live", async () => {
    const tenant = fresh("tenant");
    const task = await delegatedTask(a.context, tenant);
    // A lease store on a database that does not exist: every read fails.
    const broken = new PostgreSQLLeaseStore({ poolConfig: `${db.url}_missing` });
    try {
      const recovery = new TaskOrphanRecovery({
        tasks: a.context.stores.tasks,
        leases: broken,
        queue: a.context.stores.queue,
        wake: () => {},
        unitOfWork: a.context.stores,
        lifecycle: a.context.notifiers.taskLifecycle,
        replicaId: "gw-a",
        logger: a.context.logger,
        threadRunTtlMs: 30_000,
      });
      expect(await recovery.recoverTask({ tenantId: tenant, taskId: task.id }, RecoveryActor.SWEEP)).toBe("skipped:live");
      expect(await a.context.stores.tasks.getTask(tenant, task.id)).toEqual(task);
    } finally {
      await broken.dispose();
    }
  });

  it("converges a task never started (no run thread) when nothing runs it", async () => {
    const tenant = fresh("tenant");
    const task = await delegatedTask(a.context, tenant, { context: { caller: { assistantId: CALLER, threadId: "never-started-caller" } } });
    expect(await recoverOnA(task, RecoveryActor.ON_DEMAND)).toBe("converged");
    expect(await a.context.stores.tasks.getTask(tenant, task.id)).toMatchObject({ status: "failed", context: { recovered_by: "system:on-demand-recovery" } });
    expect(await messagesOn(a.context, { tenantId: tenant, assistantId: CALLER, threadId: "never-started-caller" })).toEqual([callerResumeMessageId(task.id)]);
  });

  it("refuses a project task and leaves it unchanged; answers not_found for a task of another tenant", async () => {
    const tenant = fresh("tenant");
    const task = await delegatedTask(a.context, tenant, { projectId: "apollo" });
    expect(await recoverOnA(task)).toBe("skipped:project_task");
    expect(await a.context.stores.tasks.getTask(tenant, task.id)).toEqual(task);
    expect(await a.context.tasks.recovery.recoverTask({ tenantId: fresh("other"), taskId: task.id }, RecoveryActor.SWEEP)).toBe("not_found");
  });

  it("two replicas racing on the same orphans converge each exactly once", async () => {
    const tenant = fresh("tenant");
    const tasks = await Promise.all(Array.from({ length: 12 }, () => delegatedTask(a.context, tenant)));
    const [eventsOfA, eventsOfB] = [a.events.length, b.events.length];
    const outcomes = await Promise.all(
      tasks.map((task) =>
        Promise.all([a, b].map((replica) => replica.context.tasks.recovery.recoverTask({ tenantId: tenant, taskId: task.id }, RecoveryActor.SWEEP))),
      ),
    );
    for (const pair of outcomes) {
      expect(pair.filter((result) => result === "converged")).toHaveLength(1);
      expect(pair.filter((result) => result !== "converged")[0]).toMatch(/^skipped:(live|not_in_progress)$/);
    }
    expect(a.events.length - eventsOfA + (b.events.length - eventsOfB)).toBe(tasks.length);
    for (const task of tasks) expect(await messagesOn(a.context, callerThreadOf(task))).toEqual([callerResumeMessageId(task.id)]);
  });
});

describe("the orphan sweep (recoverOrphanedTasks)", () => {
  let a: Gateway;
  beforeAll(async () => {
    a = await gateway((await database()).url);
  });

  it("pages through every tenant's in_progress tasks and converges the orphans only", async () => {
    const tenants = [fresh("tenant"), fresh("tenant"), fresh("tenant")];
    // More than one page of orphans.
    const orphans = await Promise.all(Array.from({ length: 130 }, (_, index) => delegatedTask(a.context, tenants[index % 3])));
    const project = await delegatedTask(a.context, tenants[0], { projectId: "apollo" });
    const done = await delegatedTask(a.context, tenants[1], { status: "completed" });
    const counts = await a.context.tasks.recovery.recoverOrphanedTasks(RecoveryActor.SWEEP);
    expect(counts).toEqual({ converged: 130, "skipped:live": 0, "skipped:queued": 0, "skipped:project_task": 1, "skipped:not_in_progress": 0, not_found: 0, errors: 0 });
    for (const orphan of orphans) expect((await a.context.stores.tasks.getTask(orphan.tenantId, orphan.id))?.status).toBe("failed");
    expect(await a.context.stores.tasks.getTask(project.tenantId, project.id)).toEqual(project);
    expect(await a.context.stores.tasks.getTask(done.tenantId, done.id)).toEqual(done);
    expect(await a.context.tasks.recovery.recoverOrphanedTasks(RecoveryActor.SWEEP)).toMatchObject({ converged: 0, "skipped:project_task": 1 });
  });
});

describe("AXIOM_TASK_ORPHAN_RECOVERY", () => {
  const orphanLeftIn = async (url: string): Promise<TaskItem> => {
    const writer = await gateway(url);
    const task = await delegatedTask(writer.context, fresh("tenant"));
    await close(writer);
    return task;
  };
  const statusIn = async (context: GatewayContext, task: TaskItem) => (await context.stores.tasks.getTask(task.tenantId, task.id))?.status;

  let started: Gateway | undefined;
  afterEach(async () => {
    if (started) await close(started);
    started = undefined;
  });

  it("=true: startup recovery converges an orphan left in the database", async () => {
    const { url } = await database();
    const task = await orphanLeftIn(url);
    started = await gateway(url, { AXIOM_TASK_ORPHAN_RECOVERY: "true" });
    await started.context.recover();
    expect(await started.context.stores.tasks.getTask(task.tenantId, task.id)).toMatchObject({ status: "failed", context: { recovered_by: "system:orphan-recovery" } });
  });

  it("unset: startup recovery leaves it alone", async () => {
    const { url } = await database();
    const task = await orphanLeftIn(url);
    started = await gateway(url);
    await started.context.recover();
    expect(await statusIn(started.context, task)).toBe("in_progress");
  });

  it("=true: the maintenance loop converges a task whose dead replica's lease was still live at startup, once it lapsed", async () => {
    const { url } = await database();
    const task = await orphanLeftIn(url);
    const deadReplica = new PostgreSQLLeaseStore({ poolConfig: url });
    try {
      // The dead replica's thread-run lease, never renewed again.
      expect(await deadReplica.tryAcquire(threadRunLeaseKey(runThreadOf(task)), "gw-dead#1", 1_500)).toBe(true);
      started = await gateway(url, { AXIOM_TASK_ORPHAN_RECOVERY: "true", AXIOM_MAINTENANCE_INTERVAL_MS: "200", AXIOM_RUN_LEASE_MS: "1000" }, { started: true });
      expect(await statusIn(started.context, task)).toBe("in_progress");
      const { context } = started;
      await eventually("the maintenance loop to converge the orphan", async () => (await statusIn(context, task)) === "failed");
    } finally {
      await deadReplica.dispose();
    }
  });
});
