// The gateway's composition root lists its subsystems; what they start, and the order they stop in on
// close, is data. These tests hold that data to the order the gateway has always started and stopped
// in, observed on the components themselves.
import { OutboxPoller, TaskLifecycleNotifier } from "@axiom-lattice/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src";
import { GATEWAY_STOP_ORDER, composeGateway, createGatewayContext } from "../src/context/gatewayContext";
import { type Subsystem, maintenanceTasksOf, stopSequence, subsystemLifecycle } from "../src/context/subsystem";
import { createGatewayLogger } from "../src/server";

afterEach(() => {
  vi.restoreAllMocks();
});

async function composeInMemory() {
  // Orphan recovery on (off by default), so every maintenance task is there.
  const config = loadConfig({ LOG_LEVEL: "silent", AXIOM_TASK_ORPHAN_RECOVERY: "true" });
  return composeGateway(config, createGatewayLogger(config));
}

describe("the gateway's subsystems", () => {
  it("are built in this order, and give the maintenance leader its tasks in the order it has always run them", async () => {
    const { context, subsystems } = await composeInMemory();
    expect(subsystems.map((subsystem) => subsystem.name)).toEqual([
      "stores",
      "graphs",
      "tasks",
      "mcp",
      "plugins",
      "a2a",
      "agents",
      "schedules",
      "web-apps",
      "mcp-server",
      "rooms",
      "task-events-into-rooms",
      "cancelled-runs",
      "outbox",
      "upkeep",
      "maintenance",
      "presence",
      "queue-sweep",
    ]);
    expect(maintenanceTasksOf(subsystems).map((task) => task.name)).toEqual([
      "schedule-requeue",
      "outbox-retention",
      "run-retention",
      "run_event-retention",
      "project-task-admissions",
      "item-expiry",
      "thread-expiry",
      "task-orphan-recovery",
    ]);
    await context.close();
  });

  it("start maintenance, presence and the queue sweep in that order, and stop as the gateway always closed", async () => {
    const calls: string[] = [];
    // The two task-lifecycle listeners the subsystems subscribe, in the order they subscribe.
    const listeners = ["task-events-into-rooms", "cancelled-runs"];
    const subscribe = TaskLifecycleNotifier.prototype.subscribe;
    vi.spyOn(TaskLifecycleNotifier.prototype, "subscribe").mockImplementation(function (this: TaskLifecycleNotifier, listener) {
      const unsubscribe = subscribe.call(this, listener);
      const name = listeners.shift() ?? "another listener";
      return () => {
        calls.push(`${name}: unsubscribed`);
        unsubscribe();
      };
    });
    const config = loadConfig({ LOG_LEVEL: "silent" });
    const context = await createGatewayContext(config, createGatewayLogger(config));
    const record = <T extends object>(label: string, target: T, method: keyof T & string) => {
      const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
      vi.spyOn(target, method as never).mockImplementation(((...args: unknown[]) => {
        calls.push(`${label}.${method}`);
        return original(...args);
      }) as never);
    };
    record("maintenance", context.maintenance, "start");
    record("presence", context.stores.presence, "announce");
    record("agents", context.agents, "startQueueSweep");
    record("roomEvents", context.roomEvents, "close");
    record("presence", context.stores.presence, "withdraw");
    record("maintenance", context.maintenance, "stop");
    record("schedules", context.schedules, "stop");
    record("poller", OutboxPoller.prototype, "stop");
    record("dispatcher", context.tasks.dispatcher, "stop");
    record("agents", context.agents, "shutdown");
    record("mcp", context.mcp, "close");
    record("stores", context.stores, "dispose");

    await context.recover();
    await context.startBackground();
    expect(calls).toEqual(["maintenance.start", "presence.announce", "agents.startQueueSweep"]);
    calls.length = 0;

    await context.close();
    expect(calls.filter((call) => call !== "presence.announce")).toEqual([
      "task-events-into-rooms: unsubscribed",
      "cancelled-runs: unsubscribed",
      "roomEvents.close",
      "presence.withdraw",
      "maintenance.stop",
      "schedules.stop",
      "poller.stop",
      "dispatcher.stop",
      "agents.shutdown",
      "mcp.close",
      "stores.dispose",
    ]);
    expect(GATEWAY_STOP_ORDER).toEqual(["task-events-into-rooms", "cancelled-runs", "rooms", "presence", "maintenance", "schedules", "outbox", "tasks", "agents", "mcp", "stores"]);
  });
});

describe("subsystemLifecycle", () => {
  const fake = (name: string, log: string[], steps: { start?: boolean; stop?: boolean } = { start: true, stop: true }): Subsystem => ({
    name,
    ...(steps.start ? { start: () => void log.push(`${name} started`) } : {}),
    ...(steps.stop ? { stop: () => void log.push(`${name} stopped`) } : {}),
  });

  it("starts in list order once, stops in the stop order once", async () => {
    const log: string[] = [];
    const lifecycle = subsystemLifecycle([fake("a", log), fake("b", log), fake("c", log, { start: true })], ["b", "a"]);
    await Promise.all([lifecycle.startBackground(), lifecycle.startBackground()]);
    expect(log).toEqual(["a started", "b started", "c started"]);
    log.length = 0;
    const closing = lifecycle.close();
    expect(lifecycle.close()).toBe(closing);
    await closing;
    expect(log).toEqual(["b stopped", "a stopped"]);
  });

  it("runs synchronous stops back to back: nothing queued by one runs before the next", async () => {
    const log: string[] = [];
    const first: Subsystem = { name: "first", stop: () => queueMicrotask(() => log.push("queued by first")) };
    await subsystemLifecycle([first, fake("second", log)], ["first", "second"]).close();
    expect(log).toEqual(["second stopped", "queued by first"]);
  });

  it("refuses a stop order that leaves out a subsystem that stops, or names one that does not", () => {
    const log: string[] = [];
    expect(() => stopSequence([fake("a", log), fake("b", log)], ["a"])).toThrow(/missing from the stop order: b/);
    expect(() => stopSequence([fake("a", log), fake("b", log, { start: true })], ["a", "b"])).toThrow(/"b", which is no subsystem that stops/);
  });
});
