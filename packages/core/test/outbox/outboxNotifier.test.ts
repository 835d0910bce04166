import {
  PROJECT_TASK_ADMISSION_TOPIC,
  TASK_LIFECYCLE_TOPIC,
  type AppendOutboxEventInput,
  type OutboxEvent,
  type TaskLifecycleEvent,
} from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  getReplicaId,
  InMemoryOutboxStore,
  OutboxNotifier,
  OutboxPoller,
  ProjectTaskAdmissionNotifier,
  TaskLifecycleNotifier,
  isTaskLifecycleEvent,
  taskLifecycleEventOf,
} from "../../src";
import { recordingLogger } from "../coordination/support";

const event = (taskId = "task-1"): TaskLifecycleEvent => ({
  tenantId: "tenant-1",
  taskId,
  status: "completed",
  updatedAt: "2024-01-02T03:04:05.000Z",
});

/** Records the order in which listeners and appends happen. */
class RecordingStore extends InMemoryOutboxStore {
  constructor(
    private readonly order: string[],
    private readonly failWith?: Error,
  ) {
    super();
  }

  override async append(input: AppendOutboxEventInput): Promise<OutboxEvent> {
    this.order.push(`append:${input.topic}`);
    if (this.failWith) throw this.failWith;
    return super.append(input);
  }
}

const pollers: OutboxPoller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

describe("task notifiers", () => {
  it("share one implementation and travel on their topics", () => {
    const taskLifecycle = new TaskLifecycleNotifier();
    const projectTaskAdmission = new ProjectTaskAdmissionNotifier();
    expect(taskLifecycle).toBeInstanceOf(OutboxNotifier);
    expect(projectTaskAdmission).toBeInstanceOf(OutboxNotifier);
    expect(taskLifecycle.topic).toBe(TASK_LIFECYCLE_TOPIC);
    expect(projectTaskAdmission.topic).toBe(PROJECT_TASK_ADMISSION_TOPIC);
  });

  it("publish delivers to local listeners first, then appends with this replica's id", async () => {
    const order: string[] = [];
    const store = new RecordingStore(order);
    const notifier = new TaskLifecycleNotifier();
    notifier.setOutbox(store);
    notifier.subscribe(async () => {
      order.push("listener-1");
    });
    notifier.subscribe(() => {
      order.push("listener-2");
    });
    await notifier.publish(event());
    expect(order).toEqual(["listener-1", "listener-2", `append:${TASK_LIFECYCLE_TOPIC}`]);
    const [appended] = await store.listAfter(null, 10);
    expect(appended).toMatchObject({ topic: TASK_LIFECYCLE_TOPIC, payload: event(), originReplicaId: getReplicaId() });
  });

  it("publish never fails when the append does; the failure is logged", async () => {
    const { logger, entries: logs } = recordingLogger();
    const order: string[] = [];
    const notifier = new TaskLifecycleNotifier({ logger });
    notifier.setOutbox(new RecordingStore(order, new Error("database unavailable")));
    const heard: unknown[] = [];
    notifier.subscribe((e) => {
      heard.push(e);
    });
    await expect(notifier.publish(event())).resolves.toBeUndefined();
    expect(heard).toEqual([event()]);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("append failed") }));
  });

  it("publish never fails on an event the outbox refuses", async () => {
    const { logger, entries: logs } = recordingLogger();
    const store = new InMemoryOutboxStore();
    const notifier = new TaskLifecycleNotifier({ logger });
    notifier.setOutbox(store);
    await expect(notifier.publish({ ...event(), failureReason: 1n } as unknown as TaskLifecycleEvent)).resolves.toBeUndefined();
    expect(await store.latestId()).toBeNull();
    expect(logs.some((entry) => entry.level === "warn")).toBe(true);
  });

  it("without an outbox (or after removing it) publish is local only", async () => {
    const store = new InMemoryOutboxStore();
    const notifier = new TaskLifecycleNotifier();
    const heard: unknown[] = [];
    notifier.subscribe((e) => {
      heard.push(e);
    });
    await notifier.publish(event("a"));
    notifier.setOutbox(store);
    notifier.setOutbox(null);
    await notifier.publish(event("b"));
    expect(heard).toEqual([event("a"), event("b")]);
    expect(await store.latestId()).toBeNull();
  });

  it("a failing listener is logged and does not keep the others from hearing", async () => {
    const { logger, entries: logs } = recordingLogger();
    const notifier = new TaskLifecycleNotifier({ logger });
    const heard: string[] = [];
    notifier.subscribe(() => {
      throw new Error("listener broke");
    });
    notifier.subscribe(async () => {
      throw new Error("async listener broke");
    });
    notifier.subscribe(() => {
      heard.push("ok");
    });
    await notifier.publish(event());
    expect(heard).toEqual(["ok"]);
    expect(logs.filter((entry) => entry.msg === "notifier listener failed")).toHaveLength(2);
  });

  it("unsubscribe stops delivery to that listener", async () => {
    const notifier = new TaskLifecycleNotifier();
    const heard: unknown[] = [];
    const unsubscribe = notifier.subscribe((e) => {
      heard.push(e);
    });
    await notifier.publish(event("a"));
    unsubscribe();
    await notifier.publish(event("b"));
    expect(heard).toEqual([event("a")]);
  });

  it("deliverFromOutbox delivers locally and never appends again", async () => {
    const store = new InMemoryOutboxStore();
    const notifier = new TaskLifecycleNotifier();
    notifier.setOutbox(store);
    const heard: unknown[] = [];
    notifier.subscribe((e) => {
      heard.push(e);
    });
    await notifier.deliverFromOutbox(JSON.parse(JSON.stringify(event())));
    expect(heard).toEqual([event()]);
    expect(await store.latestId()).toBeNull();
  });

  it.each([
    ["null", null],
    ["a string", "completed"],
    ["an array", [event()]],
    ["a missing taskId", { ...event(), taskId: undefined }],
    ["an unknown status", { ...event(), status: "exploded" }],
    ["a numeric tenantId", { ...event(), tenantId: 7 }],
    ["a non-string projectId", { ...event(), projectId: 1 }],
  ])("deliverFromOutbox refuses %s with a typed error, reaching no listener", async (_label, payload) => {
    const notifier = new TaskLifecycleNotifier();
    let heard = 0;
    notifier.subscribe(() => {
      heard += 1;
    });
    await expect(notifier.deliverFromOutbox(payload)).rejects.toMatchObject({ code: "INVALID_OUTBOX_PAYLOAD" });
    expect(heard).toBe(0);
  });

  it("checks admission events the same way", async () => {
    const notifier = new ProjectTaskAdmissionNotifier();
    const heard: unknown[] = [];
    notifier.subscribe((e) => {
      heard.push(e);
    });
    const admission = { tenantId: "t", workspaceId: "w", projectId: "p", taskId: "k", ownerId: "o", updatedAt: "2024-01-01T00:00:00.000Z" };
    await notifier.deliverFromOutbox(admission);
    await expect(notifier.deliverFromOutbox({ ...admission, projectId: "" })).rejects.toMatchObject({ code: "INVALID_OUTBOX_PAYLOAD" });
    expect(heard).toEqual([admission]);
  });

  it("through a shared outbox, the publisher hears its event once and a peer once", async () => {
    const store = new InMemoryOutboxStore();
    const self = new TaskLifecycleNotifier();
    const peer = new TaskLifecycleNotifier();
    self.setOutbox(store);
    peer.setOutbox(store);
    const heardBySelf: unknown[] = [];
    const heardByPeer: unknown[] = [];
    self.subscribe((e) => {
      heardBySelf.push(e);
    });
    peer.subscribe((e) => {
      heardByPeer.push(e);
    });
    const selfPoller = new OutboxPoller({ store, owner: getReplicaId(), handlers: { [TASK_LIFECYCLE_TOPIC]: (p) => self.deliverFromOutbox(p) } });
    const peerPoller = new OutboxPoller({ store, owner: "peer-replica", handlers: { [TASK_LIFECYCLE_TOPIC]: (p) => peer.deliverFromOutbox(p) } });
    pollers.push(selfPoller, peerPoller);
    await Promise.all([selfPoller.start(), peerPoller.start()]);
    await self.publish(event());
    const [appended] = await store.listAfter(null, 1);
    await eventually("both pollers to pass the event", () => selfPoller.stats().cursor === appended.cursor && peerPoller.stats().cursor === appended.cursor, { timeoutMs: 2_000 });
    expect(heardBySelf).toEqual([event()]);
    expect(heardByPeer).toEqual([event()]);
    expect(selfPoller.stats().skippedOwn).toBe(1);
    // The peer's delivery did not echo back into the outbox.
    expect(await store.listAfter(appended.cursor, 10)).toEqual([]);
  });
});

describe("taskLifecycleEventOf", () => {
  const task = {
    id: "task-7",
    tenantId: "tenant-1",
    ownerType: "user" as const,
    ownerId: "alice",
    title: "Write the notes",
    status: "failed" as const,
    priority: 0,
    createdAt: new Date("2024-01-02T03:04:05.000Z"),
    updatedAt: new Date("2024-01-02T03:04:06.000Z"),
  };

  it("carries the task's status and version as JSON, leaving out what the task has not", () => {
    const event = taskLifecycleEventOf(task);
    expect(event).toEqual({ tenantId: "tenant-1", taskId: "task-7", status: "failed", updatedAt: "2024-01-02T03:04:06.000Z", ownerId: "alice" });
    expect(isTaskLifecycleEvent(JSON.parse(JSON.stringify(event)))).toBe(true);
  });

  it("names the task's project, workspace and failure reason when it has them", () => {
    expect(taskLifecycleEventOf({ ...task, projectId: "p", workspaceId: "w", failureReason: "rejected" })).toMatchObject({
      projectId: "p",
      workspaceId: "w",
      failureReason: "rejected",
    });
  });
});
