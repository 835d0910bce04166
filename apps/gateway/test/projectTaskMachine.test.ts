// The project task machine through the HTTP API, on both store kinds: dispatch stamps the execution
// request and the admission starts the run on the task's thread; the run's end settles the task;
// cancel, re-dispatch and the refusals; a pass that finds the thread held by a peer defers to it.
// Then two gateways on one PostgreSQL database: a dispatch on A runs once, and a delegation whose
// caller runs on A and callee on B resumes the caller once.
import { TaskDispatcher, callerResumeMessageId, taskRunMessageId, taskStartMessageId, taskThreadId } from "@axiom-lattice/agent";
import { ProjectTaskExecutionMutex, projectTaskMachineLeaseKey, threadRunLeaseKey } from "@axiom-lattice/core";
import type { CreateTaskRequest, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { SimulatedCrash, eventually, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";
import { TENANT, ended, killedAfterInProgressCommit, runsOf, taskWhen, useReplicas } from "./taskSupport";

describe.each(["memory", "postgresql"])("the project task machine on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const events: TaskLifecycleEvent[] = [];
  const gateway = useGateway(async ({ post, context }) => {
    for (const id of ["writer", "outsider", "boss"]) expect((await post("/api/assistants", { id, name: id })).statusCode).toBe(201);
    expect((await post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
    expect((await gateway.app.inject({ method: "PUT", url: "/api/projects/launch/bots/writer" })).statusCode).toBe(200);
    context.notifiers.taskLifecycle.subscribe((event) => void events.push(event));
  }, storeEnv);
  const { post } = gateway;

  const createTask = (request: Partial<CreateTaskRequest> & { id: string }) =>
    gateway.context.stores.tasks.createTask(TENANT, { title: request.id, ownerType: "agent", ownerId: "writer", projectId: "launch", priority: 0, ...request });
  const dispatch = (id: string) => post(`/api/tasks/${id}/dispatch`, {});
  /** The task's lifecycle events heard here, once there are `count` (an event follows its write). */
  const statusesOf = async (id: string, count: number) => {
    const statuses = () => events.filter((event) => event.taskId === id).map((event) => event.status);
    await eventually(`${count} events of ${id}`, () => statuses().length >= count);
    return statuses();
  };

  it("dispatches a project task: it runs on its own thread and ends completed with the answer", async () => {
    await createTask({ id: "draft", description: "draft the notes" });
    const answered = await dispatch("draft");
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ id: "draft", status: "pending", context: { run: { assistant_id: "writer", thread_id: taskThreadId("draft") } } });
    expect(Date.parse(answered.json().context.execution_requested_at)).not.toBeNaN();

    const task = await taskWhen(gateway, "draft", ended);
    expect(task).toMatchObject({ status: "completed", result: "echo: draft the notes" });
    expect(task.fencingToken).toMatch(/^\d+$/);
    expect(await statusesOf("draft", 2)).toEqual(["in_progress", "completed"]);
    const runs = await runsOf(gateway, "writer", taskThreadId("draft"), 1);
    expect(runs.map((run) => [run.id, run.runStatus])).toEqual([[taskStartMessageId(task), "success"]]);
  });

  it("puts a task that requires review in review", async () => {
    await createTask({ id: "reviewed", description: "write it", requireReview: true });
    expect((await dispatch("reviewed")).statusCode).toBe(200);
    expect(await taskWhen(gateway, "reviewed", ended)).toMatchObject({ status: "review", result: "echo: write it" });
  });

  it("runs a failed task again when it is dispatched again", async () => {
    await createTask({ id: "retry", description: "/fail no ink" });
    expect((await dispatch("retry")).statusCode).toBe(200);
    expect(await taskWhen(gateway, "retry", ended)).toMatchObject({ status: "failed", failureReason: "no ink" });
    expect((await dispatch("retry")).statusCode).toBe(200);
    await runsOf(gateway, "writer", taskThreadId("retry"), 2);
    expect(await taskWhen(gateway, "retry", ended)).toMatchObject({ status: "failed" });
    expect(await statusesOf("retry", 5)).toEqual(["in_progress", "failed", "pending", "in_progress", "failed"]);
  });

  it("refuses what cannot be dispatched, writing nothing", async () => {
    expect((await dispatch("no-such-task")).json()).toMatchObject({ code: "NOT_FOUND" });
    await createTask({ id: "users", ownerType: "user", ownerId: "ann" });
    expect((await dispatch("users")).json()).toMatchObject({ code: "TASK_NOT_DISPATCHABLE" });
    await createTask({ id: "loose", projectId: undefined });
    expect((await dispatch("loose")).json()).toMatchObject({ code: "TASK_NOT_DISPATCHABLE" });
    await createTask({ id: "outsiders", ownerId: "outsider" });
    const refused = await dispatch("outsiders");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "NOT_A_PROJECT_MEMBER", error: expect.stringMatching(/not a member/) });
    for (const id of ["users", "loose", "outsiders"]) {
      expect((await gateway.context.stores.tasks.getTask(TENANT, id))?.context).toBeUndefined();
    }
    expect((await dispatch("bad id!")).statusCode).toBe(400);
    expect((await gateway.get("/api/tasks/draft/dispatch")).statusCode).toBe(404);
    // Another tenant's task does not exist for this one.
    const foreign = await post("/api/tasks/draft/dispatch", {}, { "x-tenant-id": "tenant-other" });
    expect(foreign.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses to dispatch a task that is running, and cancels it: its run stops and it stays cancelled", async () => {
    await createTask({ id: "long", description: "/sleep 5000" });
    expect((await dispatch("long")).statusCode).toBe(200);
    await taskWhen(gateway, "long", (task) => task.status === "in_progress");
    const again = await dispatch("long");
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "INVALID_TASK_STATE" });

    const cancelled = await post("/api/tasks/long/cancel", {});
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({ status: "cancelled" });
    expect((await runsOf(gateway, "writer", taskThreadId("long"), 1)).map((run) => run.runStatus)).toEqual(["aborted"]);
    expect(await gateway.context.stores.tasks.getTask(TENANT, "long")).toMatchObject({ status: "cancelled" });
    const twice = await post("/api/tasks/long/cancel", {});
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
    expect(await statusesOf("long", 2)).toEqual(["in_progress", "cancelled"]);
  });

  it("lets a run of an earlier dispatch that ends late settle nothing", async () => {
    await createTask({ id: "redone", description: "/sleep 1000" });
    expect((await dispatch("redone")).statusCode).toBe(200);
    const thread = taskThreadId("redone");
    await eventually("the first dispatch's run", async () => (await gateway.context.stores.queue.getProcessingMessages({ tenantId: TENANT, assistantId: "writer", threadId: thread })).length === 1);
    // Meanwhile the task was cancelled and dispatched again (written as those would write it, leaving the run alone).
    const { tasks } = gateway.context.stores;
    const running = (await tasks.getTask(TENANT, "redone"))!;
    const again = new Date(Date.parse(String(running.context?.execution_requested_at)) + 1_000).toISOString();
    await tasks.updateTask(TENANT, "redone", { status: "in_progress", context: { ...running.context, execution_requested_at: again } });

    expect((await runsOf(gateway, "writer", thread, 1)).map((run) => [run.id, run.runStatus])).toEqual([[taskStartMessageId(running), "success"]]);
    expect(await tasks.getTask(TENANT, "redone")).toMatchObject({ status: "in_progress", context: { execution_requested_at: again } });
    // Ended, so that the admissions sweeps of later tests do not start the second dispatch.
    await tasks.updateTask(TENANT, "redone", { status: "cancelled" });
  });

  it("defers a started task whose thread a peer holds, and starts it again once nobody does", async () => {
    const task = await createTask({ id: "held", description: "hello" });
    const { lease: leases, tasks } = gateway.context.stores;
    const thread = { tenantId: TENANT, assistantId: "writer", threadId: taskThreadId("held") };
    expect(await leases.tryAcquire(threadRunLeaseKey(thread), "peer-replica#1", 30_000)).toBe(true);
    await tasks.updateTask(TENANT, task.id, {
      status: "in_progress",
      context: { execution_requested_at: new Date().toISOString(), run: { assistantId: "writer", threadId: thread.threadId } },
    });
    expect(await gateway.context.tasks.dispatcher.advance(TENANT, "held")).toMatchObject({ kind: "deferred", thread });
    expect(await gateway.context.stores.queue.getQueueSize({ tenantId: TENANT, assistantId: "writer", threadId: thread.threadId })).toBe(0);

    await leases.release(threadRunLeaseKey(thread), "peer-replica#1");
    expect(await gateway.context.tasks.dispatcher.advance(TENANT, "held")).toMatchObject({ kind: "started" });
    expect(await taskWhen(gateway, "held", ended)).toMatchObject({ status: "completed", result: "echo: hello" });
  });

  it("starts a requested task whose admission was never announced on the admissions sweep (a maintenance task)", async () => {
    // The dispatcher stamped the request and died before announcing it.
    await createTask({
      id: "unannounced",
      description: "late but done",
      context: { execution_requested_at: new Date().toISOString(), run: { assistantId: "writer", threadId: taskThreadId("unannounced") } },
    });
    expect(await gateway.context.tasks.dispatcher.sweepAdmissions()).toMatchObject({ passed: 1 });
    expect(await taskWhen(gateway, "unannounced", ended)).toMatchObject({ status: "completed", result: "echo: late but done" });
    expect(await gateway.context.tasks.dispatcher.sweepAdmissions()).toEqual({ passed: 0 });
  });

  it("settles a project task whose run delegates: the resume run of its dispatch completes it with the callee's outcome", async () => {
    await createTask({ id: "delegating", description: "/task boss /sleep 300" });
    expect((await dispatch("delegating")).statusCode).toBe(200);
    const task = await taskWhen(gateway, "delegating", (current) => current.status === "completed");
    const [callee] = (await gateway.context.stores.tasks.listTasks(TENANT, { limit: 100 }, { parentId: "delegating" })).items;
    const outcome = { taskId: callee!.id, status: "completed", result: "echo: /sleep 300" };
    expect(JSON.parse(String(task.result).replace(/^task returned: /, ""))).toEqual(outcome);
    expect(task.context).toMatchObject({ resume_value: outcome });
    const runs = await runsOf(gateway, "writer", taskThreadId("delegating"), 2);
    expect(runs.map((run) => [run.id, run.runStatus])).toEqual([
      [taskStartMessageId(task), "interrupted"],
      [taskRunMessageId(task), "success"],
    ]);
    expect(await statusesOf("delegating", 4)).toEqual(["in_progress", "interrupted", "in_progress", "completed"]);
  });

  it("resumes nothing when a project task's delegated task ends after the task was cancelled", async () => {
    await createTask({ id: "abandoned", description: "/task boss /sleep 1000" });
    expect((await dispatch("abandoned")).statusCode).toBe(200);
    await taskWhen(gateway, "abandoned", (current) => current.status === "interrupted");
    expect((await post("/api/tasks/abandoned/cancel", {})).statusCode).toBe(200);
    const [callee] = (await gateway.context.stores.tasks.listTasks(TENANT, { limit: 100 }, { parentId: "abandoned" })).items;
    // The callee's run completes after its settlement resumed its caller, had it resumed anything.
    const calleeScope = { tenantId: TENANT, assistantId: "boss" };
    await eventually("the callee's run to complete", async () => (await runRecords(gateway.context.stores.queue, { ...calleeScope, threadId: taskThreadId(callee!.id) }))[0]?.runStatus === "success");
    expect(await gateway.context.stores.tasks.getTask(TENANT, callee!.id)).toMatchObject({ status: "completed" });
    const thread = taskThreadId("abandoned");
    expect(await runRecords(gateway.context.stores.queue, { tenantId: TENANT, assistantId: "writer", threadId: thread })).toHaveLength(1);
    expect(await gateway.context.stores.queue.getQueueSize({ tenantId: TENANT, assistantId: "writer", threadId: thread })).toBe(0);
    expect(await gateway.context.stores.tasks.getTask(TENANT, "abandoned")).toMatchObject({ status: "cancelled" });
  });

  it("answers cancel and resume at once with 409 TASK_MACHINE_BUSY while a dead replica holds the machine, writing nothing", async () => {
    await createTask({ id: "asks", description: "/interrupt Which region?" });
    expect((await dispatch("asks")).statusCode).toBe(200);
    await taskWhen(gateway, "asks", (current) => current.status === "interrupted");
    await createTask({ id: "waits" });
    // A replica that died holding the machine: its lease stays until it lapses (a minute, here).
    const key = projectTaskMachineLeaseKey({ tenantId: TENANT, assistantId: "writer", projectId: "launch" });
    const leases = gateway.context.stores.lease;
    expect(await leases.acquire(key, "dead-replica#1", 60_000)).not.toBeNull();
    const before = { asks: await gateway.context.stores.tasks.getTask(TENANT, "asks"), waits: await gateway.context.stores.tasks.getTask(TENANT, "waits") };
    try {
      for (const [url, body] of [["/api/tasks/waits/cancel", {}], ["/api/tasks/asks/resume", { resume: "eu-west" }]] as const) {
        const startedAt = Date.now();
        const busy = await post(url, body);
        expect(Date.now() - startedAt).toBeLessThan(2_000);
        expect(busy.statusCode).toBe(409);
        expect(busy.json()).toMatchObject({ code: "TASK_MACHINE_BUSY" });
        expect(busy.headers["retry-after"]).toBe("5");
      }
      expect(await gateway.context.stores.tasks.getTask(TENANT, "asks")).toEqual(before.asks);
      expect(await gateway.context.stores.tasks.getTask(TENANT, "waits")).toEqual(before.waits);
    } finally {
      await leases.release(key, "dead-replica#1");
    }
    expect((await post("/api/tasks/waits/cancel", {})).json()).toMatchObject({ status: "cancelled" });
    expect((await post("/api/tasks/asks/resume", { resume: "eu-west" })).statusCode).toBe(200);
    expect(await taskWhen(gateway, "asks", ended)).toMatchObject({ status: "completed", result: "ask_human returned: eu-west" });
  });

  it("lets an assistant delegate through the runs API: the caller resumes once with the callee's answer", async () => {
    expect((await post("/api/threads", { thread_id: "boss-thread", assistant_id: "boss" })).statusCode).toBe(201);
    const asked = await post("/api/runs", { assistant_id: "boss", thread_id: "boss-thread", message: "/task writer outline the plan", mode: "wait" });
    expect(asked.json()).toMatchObject({ status: "interrupted", interrupts: [{ value: { type: "task", assistantId: "writer" } }] });
    let messages: Array<{ type: string; content: string }> = [];
    await eventually("the caller to answer", async () => {
      messages = (await gateway.get("/api/threads/boss-thread/state")).json().messages ?? [];
      return messages.at(-1)?.content.startsWith("task returned:") ?? false;
    }, { timeoutMs: 10_000 });
    expect(JSON.parse(messages.at(-1)!.content.slice("task returned: ".length))).toMatchObject({ status: "completed", result: "echo: outline the plan" });
    expect(messages.filter((message) => message.type === "tool")).toHaveLength(1);
  });
});

describe("tasks across two gateways on one PostgreSQL database", () => {
  const replica = useReplicas();

  it("runs a task dispatched on A once, though both replicas' machines observe its admission", async () => {
    const a = await replica("replica-a");
    const b = await replica("replica-b");
    const passes: string[] = [];
    for (const [name, gateway] of [["a", a], ["b", b]] as const) {
      gateway.context.notifiers.projectTaskAdmission.subscribe(() => void passes.push(name));
    }
    expect((await a.post("/api/assistants", { id: "writer", name: "writer" })).statusCode).toBe(201);
    expect((await a.post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
    expect((await a.app.inject({ method: "PUT", url: "/api/projects/launch/bots/writer" })).statusCode).toBe(200);
    await a.context.stores.tasks.createTask(TENANT, { id: "shared", title: "shared", description: "hello both", ownerType: "agent", ownerId: "writer", projectId: "launch", priority: 0 });

    expect((await a.post("/api/tasks/shared/dispatch", {})).statusCode).toBe(200);
    expect(await taskWhen(b, "shared", ended)).toMatchObject({ status: "completed", result: "echo: hello both" });
    await eventually("B to observe the admission", () => passes.includes("b"));
    expect(passes.sort()).toEqual(["a", "b"]);
    expect((await runsOf(b, "writer", taskThreadId("shared"), 1)).map((run) => run.runStatus)).toEqual(["success"]);
  });

  it("starts a task once after the replica passing it died between its in_progress write and queuing its run", async () => {
    const a = await replica("doomed-a", {}, false);
    const b = await replica("survivor-b", {}, false);
    expect((await a.post("/api/assistants", { id: "finisher", name: "finisher" })).statusCode).toBe(201);
    expect((await a.post("/api/projects", { id: "recovery", name: "Recovery" })).statusCode).toBe(201);
    expect((await a.app.inject({ method: "PUT", url: "/api/projects/recovery/bots/finisher" })).statusCode).toBe(200);
    const thread = { tenantId: TENANT, assistantId: "finisher", threadId: taskThreadId("cut-short") };
    // Dispatched: the request is stamped, and A's machine passes the task.
    await a.context.stores.tasks.createTask(TENANT, {
      id: "cut-short",
      title: "cut short",
      description: "still done",
      ownerType: "agent",
      ownerId: "finisher",
      projectId: "recovery",
      priority: 0,
      context: { execution_requested_at: new Date().toISOString(), run: { assistantId: "finisher", threadId: thread.threadId } },
    });

    // A's pass dies (as under SIGKILL) the moment its in_progress write (and its event) committed: nothing more of A
    // reaches the database, its machine lease is never released, its run is never queued.
    const crash = new SimulatedCrash();
    const { stores, notifiers, logger } = a.context;
    const leases = crash.wrap(stores.lease);
    const doomed = new TaskDispatcher({
      tasks: crash.wrap(stores.tasks),
      unitOfWork: killedAfterInProgressCommit(crash, stores),
      projects: crash.wrap(stores.projects),
      leases,
      machine: new ProjectTaskExecutionMutex({ leaseStore: leases, replicaId: "doomed-a", ttlMs: 1_000 }),
      admissions: crash.wrap(notifiers.projectTaskAdmission),
      lifecycle: crash.wrap(notifiers.taskLifecycle),
      runs: { queue: crash.wrap(stores.queue), wake: () => {} },
      replicaId: "doomed-a",
      logger,
    });
    await expect(doomed.advance(TENANT, "cut-short")).rejects.toThrow("replica killed");
    expect(await b.context.stores.tasks.getTask(TENANT, "cut-short")).toMatchObject({ status: "in_progress" });
    expect(await b.context.stores.queue.getQueueSize({ tenantId: TENANT, assistantId: "finisher", threadId: thread.threadId })).toBe(0);

    // B's admissions sweep (its maintenance task) passes the started task again, once A's machine lease expired.
    expect(await b.context.tasks.dispatcher.sweepAdmissions()).toEqual({ passed: 1 });
    const task = await taskWhen(b, "cut-short", ended);
    expect(task).toMatchObject({ status: "completed", result: "echo: still done" });
    expect(await b.context.tasks.dispatcher.sweepAdmissions()).toEqual({ passed: 0 });
    expect((await runsOf(b, "finisher", thread.threadId, 1)).map((run) => [run.id, run.runStatus])).toEqual([[taskStartMessageId(task), "success"]]);
  });

  // A run lease of 2 s, and the default (30 s): with the machine's old fixed 60 s lease, dispatches
  // hung until it lapsed, and the tasks started that much later.
  it.each([
    ["a short run lease", "short", { AXIOM_RUN_LEASE_MS: "2000" }],
    ["the default settings", "default", {}],
  ])("with %s, answers dispatches at once while a dead replica holds the machine, and starts them within one run lease", async (_, project, env) => {
    const a = await replica("killed-a", env, false);
    const b = await replica("surviving-b", env);
    const runLeaseMs = b.context.config.runLeaseMs;
    const bot = `${project}-bot`;
    expect((await b.post("/api/assistants", { id: bot, name: bot })).statusCode).toBe(201);
    expect((await b.post("/api/projects", { id: project, name: project })).statusCode).toBe(201);
    expect((await b.app.inject({ method: "PUT", url: `/api/projects/${project}/bots/${bot}` })).statusCode).toBe(200);
    const scope = { tenantId: TENANT, assistantId: bot, projectId: project };
    const idOf = (name: string) => `${project}-${name}`;
    const create = (name: string, context?: Record<string, unknown>) =>
      b.context.stores.tasks.createTask(TENANT, { id: idOf(name), title: name, description: `done ${name}`, ownerType: "agent", ownerId: bot, projectId: project, priority: 0, context });

    // The machine's lease lives one run lease, renewed while held.
    const leaseLeft = await b.context.projectTaskMachine.runExclusive(scope, async () => {
      const lease = await b.context.stores.lease.get(projectTaskMachineLeaseKey(scope));
      return lease!.expiresAt.getTime() - Date.now();
    });
    expect(leaseLeft).toBeGreaterThan(runLeaseMs / 2);
    expect(leaseLeft).toBeLessThanOrEqual(runLeaseMs + 500);

    // A's pass (under the machine lease A's gateway takes: one run lease) dies, as under SIGKILL, right
    // after its in_progress write: the lease stays held until it lapses.
    const cut = idOf("cut-short");
    await create("cut-short", { execution_requested_at: new Date().toISOString(), run: { assistantId: bot, threadId: taskThreadId(cut) } });
    const crash = new SimulatedCrash();
    const { stores, notifiers, logger } = a.context;
    const leases = crash.wrap(stores.lease);
    const doomed = new TaskDispatcher({
      tasks: crash.wrap(stores.tasks),
      unitOfWork: killedAfterInProgressCommit(crash, stores),
      projects: crash.wrap(stores.projects),
      leases,
      machine: new ProjectTaskExecutionMutex({ leaseStore: leases, replicaId: "killed-a", ttlMs: a.context.config.runLeaseMs }),
      admissions: crash.wrap(notifiers.projectTaskAdmission),
      lifecycle: crash.wrap(notifiers.taskLifecycle),
      runs: { queue: crash.wrap(stores.queue), wake: () => {} },
      replicaId: "killed-a",
      logger,
    });
    await expect(doomed.advance(TENANT, cut)).rejects.toThrow("replica killed");
    const killedAt = Date.now();
    expect(await b.context.stores.lease.get(projectTaskMachineLeaseKey(scope))).toMatchObject({ holder: expect.stringContaining("killed-a") });

    // Dispatches on the survivor answer at once: the tasks are queued for the machine.
    const ids = [idOf("second"), idOf("third")];
    for (const id of ids) {
      await create(id.slice(project.length + 1));
      const startedAt = Date.now();
      const answered = await b.post(`/api/tasks/${id}/dispatch`, {});
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      expect(answered.statusCode).toBe(200);
      expect(answered.json()).toMatchObject({ status: "pending" });
    }
    // They start once the dead replica's machine lease lapsed (their waiting passes retry at least every
    // second), with room for a loaded machine.
    for (const id of ids) {
      await eventually(`${id} to start`, async () => (await b.context.stores.tasks.getTask(TENANT, id))!.status !== "pending", { timeoutMs: runLeaseMs + 5_000 });
    }
    expect(Date.now() - killedAt).toBeLessThan(runLeaseMs + 3_000);
    for (const id of ids) expect(await taskWhen(b, id, ended)).toMatchObject({ status: "completed", result: `echo: done ${id.slice(project.length + 1)}` });
    // The task whose pass died is started by B's admissions sweep.
    await b.context.tasks.dispatcher.sweepAdmissions();
    expect(await taskWhen(b, cut, ended)).toMatchObject({ status: "completed", result: "echo: done cut-short" });
  }, 60_000);

  it("stops a task's run on B when A cancels the task", async () => {
    const b = await replica("runner-b");
    expect((await b.post("/api/assistants", { id: "sleeper", name: "sleeper" })).statusCode).toBe(201);
    expect((await b.post("/api/projects", { id: "night", name: "Night" })).statusCode).toBe(201);
    expect((await b.app.inject({ method: "PUT", url: "/api/projects/night/bots/sleeper" })).statusCode).toBe(200);
    const request = { title: "long", description: "/sleep 30000", ownerType: "agent", ownerId: "sleeper", projectId: "night", priority: 0 } as const;
    await b.context.stores.tasks.createTask(TENANT, { id: "long-on-b", ...request });
    expect((await b.post("/api/tasks/long-on-b/dispatch", {})).statusCode).toBe(200);
    const thread = taskThreadId("long-on-b");
    const queueScope = { tenantId: TENANT, assistantId: "sleeper" };
    await eventually("B running the task", async () => (await b.context.stores.queue.getProcessingMessages({ ...queueScope, threadId: thread })).length === 1);

    // A starts only now, so it never ran (or held) anything of the task: B's run stops on A's word alone.
    const a = await replica("canceller-a");
    expect((await a.post("/api/tasks/long-on-b/cancel", {})).statusCode).toBe(200);
    const runs = await runsOf(b, "sleeper", thread, 1);
    expect(runs.map((run) => [run.replicaId, run.runStatus])).toEqual([["runner-b", "aborted"]]);
    expect(await b.context.stores.tasks.getTask(TENANT, "long-on-b")).toMatchObject({ status: "cancelled" });
   }, 20_000);

  it("resumes a caller running on A with the result of its callee run on B, exactly once", async () => {
    // A runs one thread at a time, threads taking turns between runs: the caller's first run, the
    // busy thread's first, the caller's delegating run, then the busy thread's second, ahead of the
    // callee's thread, woken last. B starts once A has told its peers of the busy thread's messages
    // (a thread still waiting for A's slot after the peer wake delay), without a queue sweep,
    // so of all that work it hears only the callee's wake-up: it runs the callee while A is busy.
    const a = await replica("caller-a", { AXIOM_MAX_CONCURRENT_RUNS: "1" });
    const told: string[] = [];
    const { queueWakeup } = a.context.stores;
    if (!queueWakeup) throw new Error("replicas on PostgreSQL tell each other of threads through queueWakeup");
    const notify = queueWakeup.notify.bind(queueWakeup);
    queueWakeup.notify = async (notice) => {
      await notify(notice);
      told.push(notice.threadId);
    };
    for (const id of ["boss", "helper"]) expect((await a.post("/api/assistants", { id, name: id })).statusCode).toBe(201);
    for (const thread_id of ["boss-thread", "busy-thread"]) expect((await a.post("/api/threads", { thread_id, assistant_id: "boss" })).statusCode).toBe(201);
    const queue = (thread_id: string, message: string) => a.post("/api/runs", { assistant_id: "boss", thread_id, message, mode: "queue" });
    expect((await queue("boss-thread", "/sleep 1500")).statusCode).toBe(202);
    expect((await queue("boss-thread", "/task helper check the figures")).statusCode).toBe(202);
    for (let n = 0; n < 2; n += 1) expect((await queue("busy-thread", "/sleep 1500")).statusCode).toBe(202);
    await eventually("A to tell its peers of both busy messages", () => told.filter((thread) => thread === "busy-thread").length === 2);
    await replica("callee-b", {}, false);

    await eventually("the delegated task", async () => (await a.context.stores.tasks.listTasks(TENANT, { limit: 100 }, { ownerId: "helper" })).items.length === 1);
    const [{ id: taskId }] = (await a.context.stores.tasks.listTasks(TENANT, { limit: 100 }, { ownerId: "helper" })).items;
    const task = await taskWhen(a, taskId, ended);
    expect(task).toMatchObject({ status: "completed", result: "echo: check the figures" });
    const calleeRuns = await runsOf(a, "helper", taskThreadId(task.id), 1);
    expect(calleeRuns.map((run) => [run.replicaId, run.runStatus])).toEqual([["callee-b", "success"]]);

    // The resume runs wherever the caller's thread is claimed next (here B, which settled the task).
    const callerRuns = await runsOf(a, "boss", "boss-thread", 3);
    expect(callerRuns.map((run) => [run.id === callerResumeMessageId(task.id), run.runStatus])).toEqual([
      [false, "success"],
      [false, "interrupted"],
      [true, "success"],
    ]);
    expect(callerRuns.slice(0, 2).map((run) => run.replicaId)).toEqual(["caller-a", "caller-a"]);
    const state = await a.context.agents.getAgent({ tenantId: TENANT, assistantId: "boss", threadId: "boss-thread" }).getState();
    const toolResults = state.messages.filter((message) => message.type === "tool");
    expect(toolResults.map((message) => JSON.parse(message.content))).toEqual([{ taskId: task.id, status: "completed", result: "echo: check the figures" }]);
    expect(state.messages.at(-1)?.content).toMatch(/^task returned:/);
  });
});
