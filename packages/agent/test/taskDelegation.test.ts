// Delegation between agents through the `task` tool: the caller's run waits (interrupt) while the
// callee runs the task on its own thread through the queue; the task's settlement resumes the caller
// with its outcome, once, whichever replica settles it — also after a replica dies mid-settlement.
import { InMemoryTaskStore, type QueueWakeup } from "@axiom-lattice/core";
import type { TaskItem, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { SimulatedCrash, eventually, runRecords } from "@axiom-lattice/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { TASK_TOOL, callerResumeMessageId, taskThreadId } from "../src";
import { TENANT, manager, scope, thread, useSharedStores } from "./support";

const stores = useSharedStores();
const HELPER = "helper-bot";
let tasks: InMemoryTaskStore;
let events: TaskLifecycleEvent[];

beforeEach(async () => {
  tasks = new InMemoryTaskStore({ fences: stores.leases });
  events = [];
  await stores.assistants.createAssistant(TENANT, { id: HELPER, name: "Helper", model: { provider: "scripted" }, tools: [] });
});

const taskOptions = (store = tasks) => ({ store, events: { publish: async (event: TaskLifecycleEvent) => void events.push(event) } });
const replica = (options: Parameters<typeof manager>[1] = {}) => manager(stores, { tasks: taskOptions(), ...options });

/** The caller thread's conversation, once its queue is drained and its last run ended. */
async function settledConversation(threadId: string) {
  const agent = replica().getAgent(thread(threadId));
  await eventually(
    "the caller to finish",
    async () => (await stores.queue.getQueueSize({ ...scope, threadId })) === 0 && (await agent.getState()).interrupts.length === 0,
    { timeoutMs: 5_000 },
  );
  return (await agent.getState()).messages;
}

const onlyTask = async (): Promise<TaskItem> => {
  const [task, ...others] = (await tasks.listTasks(TENANT, { limit: 100 })).items;
  expect(others).toEqual([]);
  return task;
};

describe("the task tool", () => {
  it("delegates to another assistant: the caller waits, the callee runs the task, the caller resumes with its result", async () => {
    const caller = replica().getAgent(thread("caller"));
    const asked = await (await caller.addMessage({ message: "/task helper-bot summarise the report" }, { mode: "wait" })).completion;
    expect(asked.status).toBe("interrupted");
    expect(asked.interrupts?.[0]?.value).toMatchObject({ type: "task", assistantId: HELPER });

    const messages = await settledConversation("caller");
    const task = await onlyTask();
    expect(task).toMatchObject({ ownerType: "agent", ownerId: HELPER, status: "completed", result: "echo: summarise the report" });
    expect(task.context).toMatchObject({ caller: { assistantId: scope.assistantId, threadId: "caller" }, run: { assistantId: HELPER, threadId: taskThreadId(task.id) } });
    const toolResult = messages.find((message) => message.type === "tool" && message.name === TASK_TOOL);
    expect(JSON.parse(toolResult?.content ?? "{}")).toEqual({ taskId: task.id, status: "completed", result: "echo: summarise the report" });
    expect(messages.at(-1)?.content).toBe(`${TASK_TOOL} returned: ${toolResult?.content}`);
    expect(events.map((event) => [event.taskId, event.status])).toEqual([[task.id, "completed"]]);
    // The callee's run on its own thread, and exactly one resume on the caller's. The task is settled
    // before the callee's message completes, so the caller may finish before that record is written.
    const calleeRuns = async () => (await runRecords(stores.queue, { tenantId: TENANT, assistantId: HELPER, threadId: taskThreadId(task.id) })).map((run) => run.runStatus);
    await eventually("the callee's run to be recorded", async () => (await calleeRuns()).length > 0, { timeoutMs: 5_000 });
    expect(await calleeRuns()).toEqual(["success"]);
    const callerRuns = await runRecords(stores.queue, { ...scope, threadId: "caller" });
    expect(callerRuns.map((run) => [run.id === callerResumeMessageId(task.id), run.runStatus])).toEqual([
      [false, "interrupted"],
      [true, "success"],
    ]);
  });

  it.each([
    ["/fail out of ink", { status: "failed", failureReason: "out of ink" }],
    ["/interrupt which report?", { status: "interrupted" }],
  ])("resumes the caller with the callee's %s outcome", async (text, expected) => {
    await replica().getAgent(thread("caller")).addMessage({ message: `/task helper-bot ${text}` });
    const messages = await settledConversation("caller");
    const task = await onlyTask();
    expect(task).toMatchObject(expected);
    const toolResult = messages.find((message) => message.type === "tool" && message.name === TASK_TOOL);
    expect(JSON.parse(toolResult?.content ?? "{}")).toMatchObject({ taskId: task.id, ...expected });
  });

  it("answers the model with an error, and creates nothing, for an assistant that does not exist", async () => {
    const done = await (await replica().getAgent(thread("caller")).addMessage({ message: "/task nobody do it" }, { mode: "wait" })).completion;
    expect(done.status).toBe("success");
    expect(done.messages.find((message) => message.type === "tool")?.content).toMatch(/No assistant "nobody"/);
    expect((await tasks.listTasks(TENANT, { limit: 100 })).items).toEqual([]);
  });

  it("is not offered by a runtime without tasks", async () => {
    const done = await (await manager(stores).getAgent(thread("caller")).addMessage({ message: "/task helper-bot do it" }, { mode: "wait" })).completion;
    expect(done.messages.find((message) => message.type === "tool")?.content).toMatch(/task/);
    expect((await tasks.listTasks(TENANT, { limit: 100 })).items).toEqual([]);
  });
});

/** A wake-up that reaches nobody, so only the sweep or an explicit resume starts work. */
const lostWakeups: QueueWakeup = { notify: async () => {}, subscribe: () => () => {} };
const shortLeases = { threadRunTtlMs: 300, claimLeaseMs: 300 };

describe("a replica that dies while settling a task", () => {
  it.each(["updateIfSnapshot", "addMessage"] as const)("after %s: a peer settles it and the caller resumes exactly once", async (lastCall) => {
    // The callee's replica dies right after the task write (or after the caller's resume was queued).
    const crash = new SimulatedCrash();
    const dyingTasks = new Proxy(crash.wrap(tasks), {
      get: (target, property) => {
        const value = Reflect.get(target, property, target);
        if (property !== lastCall || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          crash.kill();
          return result;
        };
      },
    });
    const dyingQueue = crash.wrap(stores.queue);
    if (lastCall === "addMessage") {
      const add = stores.queue.addMessage.bind(stores.queue);
      (dyingQueue as { addMessage: typeof add }).addMessage = async (params) => {
        const added = await add(params);
        if (String(params.id).endsWith("-resume")) crash.kill();
        return added;
      };
    }
    // One replica runs the caller and the task, and dies while settling it.
    const dying = manager(stores, { ...shortLeases, wakeup: lostWakeups, queue: dyingQueue, leases: crash.wrap(stores.leases), tasks: taskOptions(dyingTasks as InMemoryTaskStore) });
    await dying.getAgent(thread("caller")).addMessage({ message: "/task helper-bot draft it" });
    await eventually("the replica to die", () => crash.killed, { timeoutMs: 3_000 });
    const task = await onlyTask();

    const peer = manager(stores, { ...shortLeases, wakeup: lostWakeups, tasks: taskOptions() });
    peer.startQueueSweep({ intervalMs: 50 });
    const messages = await settledConversation("caller");
    expect(await onlyTask()).toMatchObject({ status: "completed", result: "echo: draft it" });
    const resumes = (await runRecords(stores.queue, { ...scope, threadId: "caller" })).filter((run) => run.id === callerResumeMessageId(task.id));
    expect(resumes.map((run) => run.runStatus)).toEqual(["success"]);
    expect(messages.filter((message) => message.type === "tool")).toHaveLength(1);
    expect(events.filter((event) => event.status === "completed")).toHaveLength(1);
  });
});
