// A database outage during a run is not the run's failure: the run is put back and runs again from its
// checkpoint, and its message enters the conversation once. Only the model's, a tool's or the input's
// failures fail a run. (apps/gateway's databaseOutageRuns test does the same on PostgreSQL, with a
// session genuinely terminated.)
import { InMemoryTaskStore } from "@axiom-lattice/core";
import { interruptAfterModelAnswer, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { UpstreamError, checkpointThreadId, taskThreadId } from "../src";
import { isDatabaseOutage } from "../src/runtime/databaseOutage";
import { RetryBackoff } from "../src/runtime/retryBackoff";
import { type SharedStores, TENANT, collect, manager, runStatus, scope, thread, useSharedStores } from "./support";

const stores = useSharedStores();

/** What PostgreSQL sends a session it terminates (pg_terminate_backend, a restart). */
const terminated = () => Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" });
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

interface Fault {
  error: () => Error;
  /** How many calls fail (default 1): a database down for a while. */
  times?: number;
  /** Which calls fail (default all). */
  when?: (...args: never[]) => boolean;
}

/** `store` whose `method` rejects with `error()` at the first `times` calls `when` picks. */
function failing<T extends object>(store: T, method: keyof T, { error, times = 1, when = () => true }: Fault): T & { failures: number } {
  let failures = 0;
  return new Proxy(store, {
    get: (target, property) => {
      if (property === "failures") return failures;
      const value: unknown = Reflect.get(target, property, target);
      if (property !== method || typeof value !== "function") return value;
      return (...args: never[]) => {
        if (failures >= times || !when(...args)) return value.apply(target, args);
        failures++;
        return Promise.reject(error());
      };
    },
  }) as T & { failures: number };
}

const conversation = async (threadId: string) => (await manager(stores).getAgent(thread(threadId)).getState()).messages.map((message) => message.content);

describe("a run the database interrupted", () => {
  const faults: Array<[string, (stores: SharedStores) => Partial<SharedStores>]> = [
    ["its answer's checkpoint, after the model answered", ({ checkpointer }) => ({ checkpointer: interruptAfterModelAnswer(checkpointer, terminated) })],
    ["reading its checkpoint", ({ checkpointer }) => ({ checkpointer: failing(checkpointer, "getTuple", { error: () => new Error("Connection terminated unexpectedly") }) })],
    ["loading its assistant", ({ assistants }) => ({ assistants: failing(assistants, "getAssistant", { error: refused }) })],
    // The runtime records an outcome together with its thread's next claim, unless its tenure ends there.
    ["recording its outcome", ({ queue }) => ({ queue: failing(queue, "completeAndClaimNext", { error: terminated }) })],
  ];

  it.each(faults)("at %s is handed over, run again from its checkpoint, and succeeds with the message once", async (_, fault) => {
    const agent = manager({ ...stores, ...fault(stores) }).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: "remember me" }, { mode: "stream" });

    // The stream says why the attempt stopped, and goes on with the next (here, on this replica again).
    const chunks = await collect(stream);
    const handedOver = chunks.findIndex((chunk) => chunk.type === "run_handed_over");
    expect(chunks[handedOver]).toMatchObject({ data: { code: "DATABASE_UNAVAILABLE" } });
    expect(chunks[handedOver + 1]).toMatchObject({ type: "run_resumed", data: { attempt: 2 } });
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, i) => i));
    expect(await agent.waitForRun(messageId)).toMatchObject({ status: "success", messages: [{ content: "remember me" }, { content: "echo: remember me" }] });
    expect((await runRecords(stores.queue, { ...scope, threadId: "t1" })).map((run) => [run.id, run.runStatus, run.error])).toEqual([[messageId, "success", undefined]]);
    expect(await conversation("t1")).toEqual(["remember me", "echo: remember me"]);
  });

  it("is retried, with growing pauses, for as long as the database stays unavailable", async () => {
    const assistants = failing(stores.assistants, "getAssistant", { error: refused, times: 3 });
    const agent = manager({ ...stores, assistants }).getAgent(thread("t1"));
    const startedAt = Date.now();
    const done = await (await agent.addMessage({ message: "still here" }, { mode: "wait" })).completion;

    expect(done.status).toBe("success");
    expect(assistants.failures).toBe(3);
    // Paused 250, 500 and 1,000 ms before the three retries.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_750);
    expect(await conversation("t1")).toEqual(["still here", "echo: still here"]);
  });

  it("of a task's run leaves the task to its retried run, which completes it", async () => {
    const tasks = new InMemoryTaskStore({ fences: stores.leases });
    await stores.assistants.createAssistant(TENANT, { id: "helper-bot", name: "Helper", model: { provider: "scripted" }, tools: [] });
    // The callee's run fails to read its checkpoint, then its settlement fails to write the task.
    const checkpointer = failing(stores.checkpointer, "getTuple", {
      error: terminated,
      when: (config: { configurable?: { thread_id?: string } }) => config.configurable?.thread_id?.startsWith(checkpointThreadId({ tenantId: TENANT, threadId: taskThreadId("") })) === true,
    });
    const taskStore = failing(tasks, "updateIfSnapshot", {
      error: terminated,
      when: (_tenant: string, _task: string, _snapshot: unknown, update: { status?: string }) => update.status === "completed",
    });
    const caller = manager({ ...stores, checkpointer }, { tasks: { store: taskStore } }).getAgent(thread("caller"));
    await caller.addMessage({ message: "/task helper-bot summarise the report" });

    await expect.poll(async () => (await tasks.listTasks(TENANT, { limit: 100 })).items[0]?.status, { timeout: 5_000 }).toBe("completed");
    expect([checkpointer.failures, taskStore.failures]).toEqual([1, 1]);
    expect((await tasks.listTasks(TENANT, { limit: 100 })).items[0]).toMatchObject({ result: "echo: summarise the report" });
  });
});

describe("a run's own failure", () => {
  it.each([
    ["the model's", "/fail out of ink", "out of ink"],
    ["the input's (a directive the model cannot follow)", "/sleep soon", 'INVALID_DIRECTIVE: /sleep expects a whole number of milliseconds, got "soon"'],
  ])("%s still fails it", async (_, text, error) => {
    const agent = manager(stores).getAgent(thread("t1"));
    const done = await (await agent.addMessage({ message: text }, { mode: "wait" })).completion;
    expect(done).toMatchObject({ status: "error", error });
    expect(await runStatus(stores, done.messageId)).toBe("error");
  });
});

describe("isDatabaseOutage", () => {
  it("is the database's unavailability, however wrapped", () => {
    expect(isDatabaseOutage(terminated())).toBe(true);
    expect(isDatabaseOutage(new Error("checkpoint failed", { cause: refused() }))).toBe(true);
  });

  it("is never the model API's failure, whose cause is a socket error too", () => {
    const unreachable = new UpstreamError("UPSTREAM_UNREACHABLE", "The model API could not be reached: connect ECONNREFUSED", { cause: refused() });
    expect(isDatabaseOutage(unreachable)).toBe(false);
    expect(isDatabaseOutage(new Error("node failed", { cause: unreachable }))).toBe(false);
    expect(isDatabaseOutage(new UpstreamError("UPSTREAM_TIMEOUT", "The model API did not answer in time", { cause: Object.assign(new Error("t"), { code: "ETIMEDOUT" }) }))).toBe(false);
  });

  it("is not a refused statement or a plain failure", () => {
    expect(isDatabaseOutage(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isDatabaseOutage(new Error("out of ink"))).toBe(false);
  });
});

describe("RetryBackoff", () => {
  it("doubles up to its bound, and starts over after a reset", () => {
    const backoff = new RetryBackoff(250, 1_000);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([250, 500, 1_000, 1_000]);
    backoff.reset();
    expect(backoff.next()).toBe(250);
  });
});
