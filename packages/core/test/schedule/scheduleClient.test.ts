import type { ScheduleStore, ScheduledTaskDefinition } from "@axiom-lattice/protocols";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DefaultScheduleClient, type Logger, InMemoryScheduleStore, type ScheduleClientOptions, type ScheduleFire } from "../../src";
import { type LogEntry, recordingLogger } from "../coordination/support";

// Pure timer logic over the in-memory store: fake timers drive the clock (Date.now included).
const START = Date.UTC(2031, 0, 1, 8, 0, 0);
const SECOND = 1_000;
const MINUTE = 60_000;

interface Run {
  taskId: string;
  scheduledAt: number;
  ranAt: number;
  replicaId: string;
}

const clients: DefaultScheduleClient[] = [];

/** A client whose `record` handler logs every run; `behaviour` may throw or wait. */
function replica(
  store: ScheduleStore,
  replicaId: string,
  runs: Run[],
  options: Partial<ScheduleClientOptions> = {},
  behaviour: (fire: ScheduleFire) => Promise<void> | void = () => {},
) {
  const client = new DefaultScheduleClient({ store, replicaId, logger, heartbeatIntervalMs: 5 * SECOND, ...options });
  client.registerHandler("record", async (fire) => {
    runs.push({ taskId: fire.task.taskId, scheduledAt: fire.scheduledAt, ranAt: Date.now(), replicaId: fire.replicaId });
    await behaviour(fire);
  });
  clients.push(client);
  return client;
}

const at = (ms: number) => new Date(ms).toISOString();
const scheduledTimes = (runs: Run[]) => runs.map((run) => at(run.scheduledAt));

let logs: LogEntry[];
let logger: Logger;
const events = (event: string) => logs.filter((entry) => (entry.fields as { event?: string }).event === event);

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  ({ logger, entries: logs } = recordingLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
  vi.useRealTimers();
});

describe("DefaultScheduleClient: one-shot and cron", () => {
  it("runs a one-shot schedule once, at its time, then completes it", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const client = replica(store, "a", runs);
    const task = await client.scheduleOnce({ taskType: "record", delayMs: 90 * SECOND, payload: { hello: "world" } });
    expect(task).toMatchObject({ status: "pending", executeAt: START + 90 * SECOND, tenantId: "default", catchUp: "once" });

    await vi.advanceTimersByTimeAsync(90 * SECOND - 1);
    expect(runs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(runs).toEqual([{ taskId: task.taskId, scheduledAt: START + 90 * SECOND, ranAt: START + 90 * SECOND, replicaId: "a" }]);
    expect(await client.get(task.taskId)).toMatchObject({ status: "completed", runCount: 1 });
  });

  it("runs a cron schedule on its fires and completes it after maxRuns", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const client = replica(store, "a", runs);
    const task = await client.scheduleCron({ taskType: "record", cronExpression: "*/15 * * * *", maxRuns: 3 });
    expect(task.nextRunAt).toBe(START + 15 * MINUTE);

    await vi.advanceTimersByTimeAsync(2 * 60 * MINUTE);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T08:15:00.000Z", "2031-01-01T08:30:00.000Z", "2031-01-01T08:45:00.000Z"]);
    expect(runs.every((run) => run.ranAt === run.scheduledAt)).toBe(true);
    expect(await client.get(task.taskId)).toMatchObject({ status: "completed", runCount: 3 });
  });

  it("follows DST in the schedule's time zone: daily 02:30 Europe/Berlin over spring-forward and fall-back", async () => {
    for (const [from, expected] of [
      ["2025-03-28T12:00:00Z", ["2025-03-29T01:30:00.000Z", "2025-03-30T01:00:00.000Z", "2025-03-31T00:30:00.000Z"]],
      ["2025-10-24T12:00:00Z", ["2025-10-25T00:30:00.000Z", "2025-10-26T00:30:00.000Z", "2025-10-27T01:30:00.000Z"]],
    ] as const) {
      vi.setSystemTime(Date.parse(from));
      const runs: Run[] = [];
      const client = replica(new InMemoryScheduleStore(), "a", runs);
      await client.scheduleCron({ taskType: "record", cronExpression: "30 2 * * *", timezone: "Europe/Berlin" });
      await vi.advanceTimersByTimeAsync(3 * 24 * 60 * MINUTE);
      expect(scheduledTimes(runs)).toEqual(expected);
      await client.stop();
    }
  });

  it("runs an hourly Europe/Berlin schedule 25 times on the fall-back day", async () => {
    vi.setSystemTime(Date.parse("2025-10-25T21:59:00Z"));
    const runs: Run[] = [];
    const client = replica(new InMemoryScheduleStore(), "a", runs);
    await client.scheduleCron({ taskType: "record", cronExpression: "0 * * * *", timezone: "Europe/Berlin" });
    await vi.advanceTimersByTimeAsync(25 * 60 * MINUTE);
    expect(runs).toHaveLength(25);
    expect(runs.slice(1).every((run, i) => run.scheduledAt - runs[i].scheduledAt === 60 * MINUTE)).toBe(true);
  });

  it("waits beyond the platform timer maximum in steps and fires on time", async () => {
    const runs: Run[] = [];
    const client = replica(new InMemoryScheduleStore(), "a", runs);
    const executeAt = START + 40 * 24 * 60 * MINUTE; // 40 days > 2^31-1 ms
    await client.scheduleOnce({ taskType: "record", executeAt: new Date(executeAt) });
    await vi.advanceTimersByTimeAsync(executeAt - START - 1);
    expect(runs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs.map((run) => run.ranAt)).toEqual([executeAt]);
  });
});

describe("DefaultScheduleClient: failures", () => {
  it("retries with exponential backoff while retries remain, then fails with lastError", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    let attempt = 0;
    const client = replica(store, "a", runs, { retryBackoff: { baseMs: 10 * SECOND } }, () => {
      throw new Error(`boom ${++attempt}`);
    });
    const task = await client.scheduleOnce({ taskType: "record", delayMs: MINUTE, maxRetries: 2 });

    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(await client.get(task.taskId)).toMatchObject({ status: "pending", retryCount: 1, lastError: "boom 1", executeAt: START + MINUTE + 10 * SECOND });
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(runs.map((run) => run.ranAt - START)).toEqual([MINUTE, MINUTE + 10 * SECOND, MINUTE + 30 * SECOND]);
    expect(await client.get(task.taskId)).toMatchObject({ status: "failed", retryCount: 2, runCount: 0, lastError: "boom 3" });
    // Failures are loud: each retry a warning, the last an error naming the schedule's failure.
    expect(events("fire-retry").map((entry) => [entry.level, (entry.fields as { error?: string }).error])).toEqual([
      ["warn", "boom 1"],
      ["warn", "boom 2"],
    ]);
    expect(events("fire-failed")).toEqual([expect.objectContaining({ level: "error", fields: expect.objectContaining({ error: "boom 3", status: "failed" }) })]);
    expect(events("fire-settled")).toEqual([]);
  });

  it("a cron fire that fails then succeeds on retry continues with the next cron fire", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    let attempt = 0;
    const client = replica(store, "a", runs, { retryBackoff: { baseMs: 5 * SECOND } }, () => {
      if (++attempt === 1) throw new Error("flaky");
    });
    const task = await client.scheduleCron({ taskType: "record", cronExpression: "0 * * * *" });
    await vi.advanceTimersByTimeAsync(2 * 60 * MINUTE + SECOND);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T09:00:00.000Z", "2031-01-01T09:00:05.000Z", "2031-01-01T10:00:00.000Z"]);
    expect(await client.get(task.taskId)).toMatchObject({ status: "pending", retryCount: 0, runCount: 2, lastError: "flaky" });
  });
});

describe("DefaultScheduleClient: several replicas on one store", () => {
  it("claims before executing: each fire runs once although every replica armed it", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    // Each run takes a while, so the losers' claims land while the winner's run is in progress.
    const busy = () => new Promise<void>((resolve) => setTimeout(resolve, 200));
    const [a, b, c] = ["a", "b", "c"].map((id) => replica(store, id, runs, {}, busy));
    const task = await a.scheduleCron({ taskType: "record", cronExpression: "* * * * * *" });
    expect(await b.restore()).toEqual({ requeued: 0, armed: 1 });
    expect(await c.armActive()).toBe(1);
    await vi.advanceTimersByTimeAsync(20 * SECOND + 500);
    const expected = Array.from({ length: 20 }, (_, i) => at(START + (i + 1) * SECOND));
    expect(scheduledTimes(runs)).toEqual(expected);
    expect(await store.get(task.taskId)).toMatchObject({ status: "pending", runCount: 20 });
    // Every replica tried every fire; the two losers of each skipped silently (a debug line only).
    expect(events("claim-won")).toHaveLength(20);
    expect(events("claim-lost")).toHaveLength(40);
    expect(events("claim-lost").every((entry) => entry.level === "debug")).toBe(true);
    expect(logs.filter((entry) => entry.level === "warn" || entry.level === "error")).toEqual([]);
  });

  it("a stale timer for fire N cannot claim fire N+1", async () => {
    const store = new InMemoryScheduleStore();
    // Replica "slow" reaches the store late: its claim of fire N arrives after "fast" ran and settled it.
    const slowStore = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== "claimScheduledRun") return Reflect.get(target, property, receiver);
        return async (taskId: string, expectedRunAt?: number) => {
          await new Promise((resolve) => setTimeout(resolve, 3 * SECOND));
          return target.claimScheduledRun(taskId, expectedRunAt);
        };
      },
    });
    const runs: Run[] = [];
    const slow = replica(slowStore, "slow", runs);
    const fast = replica(store, "fast", runs);
    const task = await slow.scheduleCron({ taskType: "record", cronExpression: "* * * * *" });
    await fast.restore();

    await vi.advanceTimersByTimeAsync(MINUTE + 10 * SECOND);
    // Fire N+1 was pending when the stale claim for N arrived; it must not have run early.
    expect(runs.map((run) => [at(run.scheduledAt), at(run.ranAt), run.replicaId])).toEqual([
      ["2031-01-01T08:01:00.000Z", "2031-01-01T08:01:00.000Z", "fast"],
    ]);
    expect(await store.get(task.taskId)).toMatchObject({ status: "pending", nextRunAt: START + 2 * MINUTE });
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T08:01:00.000Z", "2031-01-01T08:02:00.000Z"]);
  });

  it("leaves a fire to peers when this replica has no handler for its type", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const withHandler = replica(store, "a", runs);
    const bare = new DefaultScheduleClient({ store, replicaId: "bare", logger });
    clients.push(bare);
    const task = await withHandler.scheduleOnce({ taskType: "record", delayMs: SECOND });
    await bare.restore();
    await withHandler.stop();
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(runs).toHaveLength(0);
    expect((await store.get(task.taskId))?.status).toBe("pending");
  });

  it("peers learn about changes through onChange → handleScheduleChanged", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const peer = replica(store, "peer", runs);
    const changed: string[] = [];
    const origin = replica(store, "origin", runs, {
      onChange: async (taskId) => {
        changed.push(taskId);
        await peer.handleScheduleChanged(taskId);
      },
    });
    const task = await origin.scheduleOnce({ taskType: "record", delayMs: MINUTE });
    // Without the notification only the origin would have a timer; stop it to prove the peer armed.
    await origin.stop();
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(runs.map((run) => run.replicaId)).toEqual(["peer"]);
    expect(changed).toEqual([task.taskId]);
  });

  it("a paused schedule is disarmed on a notified peer, and a resumed one re-armed", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const peer = replica(store, "peer", runs);
    const origin = replica(store, "origin", runs, { onChange: (taskId) => peer.handleScheduleChanged(taskId) });
    const task = await origin.scheduleCron({ taskType: "record", cronExpression: "*/10 * * * *" });
    await origin.pause(task.taskId);
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    expect(runs).toHaveLength(0);
    const resumed = await origin.resume(task.taskId);
    // Fires missed while paused are not caught up: the schedule continues after now.
    expect(resumed).toMatchObject({ status: "pending", nextRunAt: START + 40 * MINUTE });
    await origin.stop();
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(runs.map((run) => [at(run.scheduledAt), run.replicaId])).toEqual([["2031-01-01T08:40:00.000Z", "peer"]]);
  });

  it("a deleted schedule is disarmed on a notified peer: no further claim attempts", async () => {
    const store = new InMemoryScheduleStore();
    const peer = replica(store, "peer", []);
    const origin = replica(store, "origin", [], { onChange: (taskId) => peer.handleScheduleChanged(taskId) });
    const task = await origin.scheduleOnce({ taskType: "record", delayMs: MINUTE });
    await origin.stop();
    await store.delete(task.taskId);
    await peer.handleScheduleChanged(task.taskId);
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    expect([...events("claim-won"), ...events("claim-lost")]).toEqual([]);
  });
});

describe("DefaultScheduleClient: recovery", () => {
  it("heartbeats a running handler so another replica's restore does not requeue it", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    let release!: () => void;
    const long = replica(store, "long", runs, { heartbeatIntervalMs: 10 * SECOND }, () => new Promise<void>((resolve) => (release = resolve)));
    const task = await long.scheduleOnce({ taskType: "record", delayMs: SECOND });
    await vi.advanceTimersByTimeAsync(SECOND);
    expect((await store.get(task.taskId))?.status).toBe("running");

    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    const other = replica(store, "other", runs, { staleRunningMs: MINUTE });
    expect(await other.restore()).toMatchObject({ requeued: 0 });
    expect((await store.get(task.taskId))?.status).toBe("running");
    release();
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(runs.map((run) => run.replicaId)).toEqual(["long"]);
    expect((await store.get(task.taskId))?.status).toBe("completed");
  });

  it("restore() requeues a run left unsettled by a crash after the threshold, and the fire runs again", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const creator = replica(store, "creator", runs);
    const task = await creator.scheduleCron({ taskType: "record", cronExpression: "0 9 * * *" });
    await creator.stop();
    // A replica that claimed the 09:00 fire and died before settling it.
    vi.setSystemTime(task.nextRunAt!);
    expect(await store.claimScheduledRun(task.taskId, task.nextRunAt)).toBe(true);

    vi.setSystemTime(task.nextRunAt! + 10 * MINUTE);
    const early = replica(store, "early", runs, { staleRunningMs: 30 * MINUTE });
    expect(await early.restore()).toMatchObject({ requeued: 0 });
    await early.stop();

    vi.setSystemTime(task.nextRunAt! + 31 * MINUTE);
    const restarted = replica(store, "restarted", runs, { staleRunningMs: 30 * MINUTE });
    expect(await restarted.restore()).toMatchObject({ requeued: 1, armed: 1 });
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(runs.map((run) => [at(run.scheduledAt), run.replicaId])).toEqual([["2031-01-01T09:00:00.000Z", "restarted"]]);
    expect(await store.get(task.taskId)).toMatchObject({ status: "pending", runCount: 1, nextRunAt: Date.UTC(2031, 0, 2, 9) });
  });

  it("requeueAbandoned(): a cron fire whose runner died is requeued within a few heartbeats and runs again on a survivor, no restart", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    // Peers hear of each other's changes, as through the outbox.
    const peers: DefaultScheduleClient[] = [];
    const onChange = async (taskId: string) => Promise.all(peers.map((peer) => peer.handleScheduleChanged(taskId))).then(() => undefined);
    const [b, c] = ["b", "c"].map((id) => replica(store, id, runs, { heartbeatIntervalMs: 2 * SECOND, onChange }));
    peers.push(b, c);
    const task = await b.scheduleCron({ taskType: "record", cronExpression: "*/10 * * * * *" });
    // Replica "a" claimed the 08:00:10 fire, then died: no heartbeat, no settlement.
    vi.setSystemTime(task.nextRunAt!);
    expect(await store.claimScheduledRun(task.taskId, task.nextRunAt)).toBe(true);
    await b.handleScheduleChanged(task.taskId);
    await c.handleScheduleChanged(task.taskId);

    // Within three heartbeats nothing is requeued: a live runner may just be slow.
    await vi.advanceTimersByTimeAsync(5 * SECOND);
    expect(await b.requeueAbandoned()).toEqual([]);
    // Past them, the maintenance leader's pass requeues it and every survivor re-arms it.
    await vi.advanceTimersByTimeAsync(2 * SECOND);
    expect(await b.requeueAbandoned()).toEqual([task.taskId]);
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(runs.map((run) => at(run.scheduledAt))).toEqual(["2031-01-01T08:00:10.000Z"]);
    expect(events("requeued")).toEqual([expect.objectContaining({ level: "warn" })]);

    // Firing continues on its cron from there, each fire once.
    await vi.advanceTimersByTimeAsync(20 * SECOND);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T08:00:10.000Z", "2031-01-01T08:00:20.000Z", "2031-01-01T08:00:30.000Z"]);
    expect(await store.get(task.taskId)).toMatchObject({ status: "pending", runCount: 3 });
  });

  it("stop() inside a fire aborts the handler's signal and leaves the fire running, unsettled, for a peer to requeue", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const stopping = replica(store, "stopping", runs, { heartbeatIntervalMs: 2 * SECOND }, ({ signal }) =>
      new Promise<void>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    );
    const task = await stopping.scheduleOnce({ taskType: "record", delayMs: SECOND });
    await vi.advanceTimersByTimeAsync(SECOND);
    await stopping.stop();
    expect(await store.get(task.taskId)).toMatchObject({ status: "running", retryCount: 0 });
    expect(events("fire-interrupted")).toHaveLength(1);

    const peer = replica(store, "peer", runs, { heartbeatIntervalMs: 2 * SECOND });
    await vi.advanceTimersByTimeAsync(7 * SECOND);
    expect(await peer.requeueAbandoned()).toEqual([task.taskId]);
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(runs.map((run) => run.replicaId)).toEqual(["stopping", "peer"]);
    expect(await store.get(task.taskId)).toMatchObject({ status: "completed", runCount: 1 });
  });

  it("offers its requeue as a maintenance task, run once per heartbeat interval", () => {
    const client = replica(new InMemoryScheduleStore(), "a", [], { heartbeatIntervalMs: 700 });
    expect(client.maintenanceTasks()).toEqual([expect.objectContaining({ name: "schedule-requeue", intervalMs: 700 })]);
  });

  it("catch-up once: fires missed while no replica ran run once, then the schedule continues from now", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const first = replica(store, "first", runs);
    const task = await first.scheduleCron({ taskType: "record", cronExpression: "*/5 * * * *" });
    await first.stop();
    vi.setSystemTime(START + 62 * MINUTE); // 12 fires missed

    const second = replica(store, "second", runs);
    await second.restore();
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T08:05:00.000Z"]);
    expect(await store.get(task.taskId)).toMatchObject({ runCount: 1, nextRunAt: START + 65 * MINUTE });
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(runs).toHaveLength(2);
  });

  it("catch-up skip: missed fires do not run; a missed one-shot completes without running", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const first = replica(store, "first", runs);
    const cron = await first.scheduleCron({ taskType: "record", cronExpression: "*/5 * * * *", catchUp: "skip" });
    const once = await first.scheduleOnce({ taskType: "record", delayMs: MINUTE, catchUp: "skip" });
    await first.stop();
    vi.setSystemTime(START + 62 * MINUTE);

    const second = replica(store, "second", runs);
    await second.restore();
    await vi.advanceTimersByTimeAsync(SECOND);
    expect(runs).toHaveLength(0);
    expect(await store.get(cron.taskId)).toMatchObject({ status: "pending", runCount: 0, nextRunAt: START + 65 * MINUTE });
    expect(await store.get(once.taskId)).toMatchObject({ status: "completed", runCount: 0 });
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    expect(scheduledTimes(runs)).toEqual(["2031-01-01T09:05:00.000Z"]);
  });

  it("stop() disarms every timer and waits for a fire in progress", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    let finished = false;
    const client = replica(store, "a", runs, {}, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5 * SECOND));
      finished = true;
    });
    const task = await client.scheduleCron({ taskType: "record", cronExpression: "* * * * *" });
    await vi.advanceTimersByTimeAsync(MINUTE);
    const stopping = client.stop();
    await vi.advanceTimersByTimeAsync(5 * SECOND);
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(runs).toHaveLength(1);
    expect(await store.get(task.taskId)).toMatchObject({ status: "pending", runCount: 1 });
  });
});

describe("DefaultScheduleClient: requests and state changes", () => {
  // The rules themselves are tabled in scheduleRequest.test.ts; here: the client applies them before storing.
  it("refuses an invalid request, storing nothing", async () => {
    const store = new InMemoryScheduleStore();
    const client = replica(store, "a", []);
    await expect(client.scheduleOnce({ taskType: "nope", delayMs: 1 })).rejects.toMatchObject({ code: "UNKNOWN_TASK_TYPE" });
    await expect(client.scheduleOnce({ taskType: "record", delayMs: 1, maxRetries: -1 })).rejects.toMatchObject({ code: "INVALID_SCHEDULE" });
    await expect(client.scheduleCron({ taskType: "record", cronExpression: "61 * * * *" })).rejects.toMatchObject({ code: "INVALID_CRON" });
    expect(await store.countTasks()).toBe(0);
  });

  it("pauses, resumes, cancels and lists within a tenant only", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const client = replica(store, "a", runs);
    const mine = await client.scheduleOnce({ taskType: "record", delayMs: MINUTE, tenantId: "acme" });
    const theirs = await client.scheduleOnce({ taskType: "record", delayMs: MINUTE, tenantId: "other" });

    expect((await client.list({ limit: 10 }, "acme")).items.map((task: ScheduledTaskDefinition) => task.taskId)).toEqual([mine.taskId]);
    expect(await client.get(theirs.taskId, "acme")).toBeNull();
    await expect(client.pause(theirs.taskId, "acme")).rejects.toMatchObject({ code: "SCHEDULE_NOT_FOUND" });
    await expect(client.resume(mine.taskId, "acme")).rejects.toMatchObject({ code: "INVALID_SCHEDULE_STATE" });

    expect(await client.pause(mine.taskId, "acme")).toMatchObject({ status: "paused" });
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    expect(runs.map((run) => run.taskId)).toEqual([theirs.taskId]);
    expect(await client.cancel(mine.taskId, "acme")).toMatchObject({ status: "cancelled" });
    expect(await client.cancel(mine.taskId, "acme")).toMatchObject({ status: "cancelled" });
    await expect(client.resume(mine.taskId, "acme")).rejects.toMatchObject({ code: "INVALID_SCHEDULE_STATE" });
    await expect(client.cancel(theirs.taskId, "other")).rejects.toMatchObject({ code: "INVALID_SCHEDULE_STATE" });
  });

  it("changes a cron schedule's payload, expression and pausing, on every notified replica; refuses a bad change", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const peer = replica(store, "peer", runs);
    const origin = replica(store, "origin", runs, { onChange: (taskId) => peer.handleScheduleChanged(taskId) });
    const task = await origin.scheduleCron({ taskType: "record", cronExpression: "*/10 * * * *", tenantId: "acme" });
    await expect(origin.changeCron(task.taskId, "other", { active: false })).rejects.toMatchObject({ code: "SCHEDULE_NOT_FOUND" });
    await expect(origin.changeCron(task.taskId, "acme", { cronExpression: "61 * * * *" })).rejects.toMatchObject({ code: "INVALID_CRON" });

    expect(await origin.changeCron(task.taskId, "acme", { active: false })).toMatchObject({ status: "paused" });
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    expect(runs).toHaveLength(0);
    const changed = await origin.changeCron(task.taskId, "acme", { active: true, cronExpression: "*/15 * * * *", payload: { n: 2 } });
    expect(changed).toMatchObject({ status: "pending", cronExpression: "*/15 * * * *", payload: { n: 2 }, nextRunAt: START + 45 * MINUTE });
    await origin.stop();
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    expect(runs.map((run) => [at(run.scheduledAt), run.replicaId])).toEqual([
      ["2031-01-01T08:45:00.000Z", "peer"],
      ["2031-01-01T09:00:00.000Z", "peer"],
    ]);
    const once = await peer.scheduleOnce({ taskType: "record", delayMs: MINUTE });
    await expect(peer.changeCron(once.taskId, undefined, { active: false })).rejects.toMatchObject({ code: "INVALID_SCHEDULE_STATE" });
  });

  it("deletes a schedule within its tenant, disarming it on every notified replica", async () => {
    const store = new InMemoryScheduleStore();
    const runs: Run[] = [];
    const peer = replica(store, "peer", runs);
    const origin = replica(store, "origin", runs, { onChange: (taskId) => peer.handleScheduleChanged(taskId) });
    const task = await origin.scheduleCron({ taskType: "record", cronExpression: "*/10 * * * *", tenantId: "acme" });
    await expect(origin.delete(task.taskId, "other")).rejects.toMatchObject({ code: "SCHEDULE_NOT_FOUND" });
    await origin.delete(task.taskId, "acme");
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    expect(runs).toHaveLength(0);
    expect(await store.get(task.taskId)).toBeNull();
  });

  it("refuses a second handler for one task type", () => {
    const client = replica(new InMemoryScheduleStore(), "a", []);
    expect(() => client.registerHandler("record", () => {})).toThrow(/already registered/);
  });
});
