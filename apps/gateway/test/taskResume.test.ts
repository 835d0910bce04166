// Resuming an interrupted task through the tasks API, on both store kinds: the resume run answers the
// run's question and its end settles the task; the refusals write nothing; a late end of an earlier
// run settles nothing; cancelling stops the resume run. Then two gateways on one PostgreSQL database:
// racing resumes run once, and a resume whose replica died before its enqueue is finished by a peer.
import { resumeTaskRun, taskRunMessageId, taskStartMessageId, taskThreadId } from "@axiom-lattice/agent";
import { ProjectTaskExecutionMutex } from "@axiom-lattice/core";
import type { TaskItem } from "@axiom-lattice/protocols";
import { SimulatedCrash, eventually, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";
import { TENANT, killedAfterInProgressWrite, runsOf, taskWhen, useReplicas } from "./taskSupport";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };
const is = (status: string) => (task: TaskItem) => task.status === status;

const question = (id: string) => ({ id, title: id, description: "/interrupt Which region?", ownerType: "agent", ownerId: "writer", projectId: "launch", priority: 0 }) as const;

describe.each(["memory", "postgresql"])("resuming a task on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(async ({ post }) => {
    expect((await post("/api/assistants", { id: "writer", name: "writer" })).statusCode).toBe(201);
    expect((await post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
    expect((await gateway.app.inject({ method: "PUT", url: "/api/projects/launch/bots/writer" })).statusCode).toBe(200);
  }, storeEnv);
  const { post } = gateway;

  it("resumes an interrupted task with the answer: the resume run completes it, once", async () => {
    await gateway.context.stores.tasks.createTask(TENANT, question("region"));
    expect((await post("/api/tasks/region/dispatch", {})).statusCode).toBe(200);
    const interrupted = await taskWhen(gateway, "region", is("interrupted"));

    expect((await gateway.app.inject({ method: "POST", url: "/api/tasks/region/resume", headers: OTHER_TENANT, payload: { resume: "eu-west" } })).statusCode).toBe(404);
    expect((await post("/api/tasks/region/resume", {})).json()).toMatchObject({ code: "INVALID_REQUEST" });
    const resumed = await post("/api/tasks/region/resume", { resume: "eu-west" });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ status: "in_progress", context: { resume_value: "eu-west" } });
    const task = await taskWhen(gateway, "region", is("completed"));
    expect(task.result).toBe("ask_human returned: eu-west");
    const runs = await runsOf(gateway, "writer", taskThreadId("region"), 2);
    expect(runs.map((run) => [run.id, run.runStatus])).toEqual([
      [taskStartMessageId(interrupted), "interrupted"],
      [taskRunMessageId(task), "success"],
    ]);
    expect(taskRunMessageId(task)).toMatch(/^task-region-resume-run-\d+$/);

    const again = await post("/api/tasks/region/resume", { resume: "us-east" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
    expect(await gateway.context.stores.tasks.getTask(TENANT, "region")).toEqual(task);
  });

  it("refuses to resume a task that is not interrupted, writing nothing", async () => {
    const task = await gateway.context.stores.tasks.createTask(TENANT, question("idle"));
    const refused = await post("/api/tasks/idle/resume", { resume: "eu-west" });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "INVALID_TASK_STATE" });
    expect(await gateway.context.stores.tasks.getTask(TENANT, "idle")).toEqual(task);
    expect((await post("/api/tasks/missing/resume", { resume: 1 })).statusCode).toBe(404);
  });

  it("lets the earlier run that ends late after a resume settle nothing", async () => {
    await gateway.context.stores.tasks.createTask(TENANT, { ...question("late"), description: "/sleep 1000" });
    expect((await post("/api/tasks/late/dispatch", {})).statusCode).toBe(200);
    const thread = taskThreadId("late");
    await eventually("the run", async () => (await gateway.context.stores.queue.getProcessingMessages({ tenantId: TENANT, assistantId: "writer", threadId: thread })).length === 1);
    // Meanwhile the task was interrupted and resumed (written as a resume would write it, its run left alone).
    const { tasks } = gateway.context.stores;
    const running = (await tasks.getTask(TENANT, "late"))!;
    const resumedAt = new Date(Date.parse(String(running.context?.execution_requested_at)) + 1_000).toISOString();
    await tasks.updateTask(TENANT, "late", { context: { ...running.context, resumed_at: resumedAt, resume_value: "x" } });

    expect((await runsOf(gateway, "writer", thread, 1)).map((run) => [run.id, run.runStatus])).toEqual([[taskStartMessageId(running), "success"]]);
    expect(await tasks.getTask(TENANT, "late")).toMatchObject({ status: "in_progress", context: { resumed_at: resumedAt } });
    // Ended, so that the admissions sweeps of later tests do not queue its resume run.
    await tasks.updateTask(TENANT, "late", { status: "cancelled" });
  });

  it("stops the resumed run when the resumed task is cancelled", async () => {
    await gateway.context.stores.tasks.createTask(TENANT, question("stopped"));
    expect((await post("/api/tasks/stopped/dispatch", {})).statusCode).toBe(200);
    await taskWhen(gateway, "stopped", is("interrupted"));
    // Resumed, its resume run long (a stand-in queued under the resume run's id: the scripted model answers a resume at once).
    const { tasks, queue } = gateway.context.stores;
    const interrupted = (await tasks.getTask(TENANT, "stopped"))!;
    const resumed = (await tasks.updateTask(TENANT, "stopped", { status: "in_progress", context: { ...interrupted.context, resumed_at: new Date().toISOString(), resume_value: "x" } }))!;
    const thread = taskThreadId("stopped");
    const scope = { tenantId: TENANT, assistantId: "writer" };
    await queue.addMessage({ id: taskRunMessageId(resumed), threadId: thread, scope, content: { message: "/sleep 30000", task: { taskId: "stopped" } } });
    await gateway.context.agents.wake({ ...scope, threadId: thread });
    await eventually("the resume run", async () => (await queue.getProcessingMessages({ ...scope, threadId: thread })).length === 1);

    expect((await post("/api/tasks/stopped/cancel", {})).statusCode).toBe(200);
    const runs = await runsOf(gateway, "writer", thread, 2);
    await eventually("the resume run to stop", async () => (await runRecords(queue, { ...scope, threadId: thread })).at(-1)?.runStatus === "aborted");
    expect(runs.map((run) => run.id)).toEqual([taskStartMessageId(interrupted), taskRunMessageId(resumed)]);
    expect(await tasks.getTask(TENANT, "stopped")).toMatchObject({ status: "cancelled" });
  });
});

describe("resuming a task across two gateways on one PostgreSQL database", () => {
  const replica = useReplicas();
  const interruptedTask = async (a: Awaited<ReturnType<typeof replica>>, id: string) => {
    if ((await a.context.stores.assistants.getAssistant(TENANT, "writer")) === null) {
      expect((await a.post("/api/assistants", { id: "writer", name: "writer" })).statusCode).toBe(201);
      expect((await a.post("/api/projects", { id: "launch", name: "Launch" })).statusCode).toBe(201);
      expect((await a.app.inject({ method: "PUT", url: "/api/projects/launch/bots/writer" })).statusCode).toBe(200);
    }
    await a.context.stores.tasks.createTask(TENANT, question(id));
    expect((await a.post(`/api/tasks/${id}/dispatch`, {})).statusCode).toBe(200);
    return taskWhen(a, id, is("interrupted"));
  };


  it("resumes once when A and B are asked to resume the task at the same time", async () => {
    const a = await replica("racer-a");
    const b = await replica("racer-b");
    await interruptedTask(a, "raced");
    const answers = await Promise.all([a.post("/api/tasks/raced/resume", { resume: "eu-west" }), b.post("/api/tasks/raced/resume", { resume: "us-east" })]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const task = await taskWhen(b, "raced", is("completed"));
    const runs = await runsOf(a, "writer", taskThreadId("raced"), 2);
    expect(runs.map((run) => run.runStatus)).toEqual(["interrupted", "success"]);
    expect(runs[1]!.id).toBe(taskRunMessageId(task));
  });

  it("queues the resume run once after the replica resuming it died between its status write and the enqueue", async () => {
    const a = await replica("doomed-a", {}, false);
    const b = await replica("survivor-b", {}, false);
    // Not started, so dispatch and interruption run on a gateway started for it.
    const runner = await replica("runner-c");
    await interruptedTask(runner, "cut-short");

    const crash = new SimulatedCrash();
    const { stores, notifiers } = a.context;
    const killedAfterWrite = killedAfterInProgressWrite(crash, stores.tasks);
    const leases = crash.wrap(stores.lease);
    const deps = {
      tasks: {
        store: killedAfterWrite,
        events: crash.wrap(notifiers.taskLifecycle),
        machine: new ProjectTaskExecutionMutex({ leaseStore: leases, replicaId: "doomed-a", ttlMs: 1_000 }),
      },
      queue: crash.wrap(stores.queue),
      wake: () => {},
    };
    const interrupted = await stores.tasks.getTask(TENANT, "cut-short");
    await expect(resumeTaskRun(deps, interrupted!, "eu-west")).rejects.toThrow("replica killed");
    const thread = taskThreadId("cut-short");
    const scope = { tenantId: TENANT, assistantId: "writer" };
    expect(await b.context.stores.tasks.getTask(TENANT, "cut-short")).toMatchObject({ status: "in_progress", context: { resume_value: "eu-west" } });
    expect(await b.context.stores.queue.getQueueSize({ ...scope, threadId: thread })).toBe(0);

    // B's admissions sweep passes the task again once A's machine lease expired: the same resume run is queued.
    expect(await b.context.tasks.dispatcher.sweepAdmissions()).toEqual({ passed: 1 });
    const task = await taskWhen(runner, "cut-short", is("completed"));
    expect(task.result).toBe("ask_human returned: eu-west");
    expect(await b.context.tasks.dispatcher.sweepAdmissions()).toEqual({ passed: 0 });
    const runs = await runsOf(runner, "writer", thread, 2);
    expect(runs.map((run) => [run.id, run.runStatus])).toEqual([
      [taskStartMessageId(task), "interrupted"],
      [taskRunMessageId(task), "success"],
    ]);
  }, 60_000);
});
