import { type CapturingLogger, recordingLogger } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import type { OutboxStore, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { InProcessQueueWakeup, RetentionJob, TaskLifecycleNotifier } from "../../src";

const event: TaskLifecycleEvent = { tenantId: "t", taskId: "task-1", status: "completed", updatedAt: "2026-01-01T00:00:00.000Z" };

// Each case builds one component with `logger` and makes it log one line naming `tag`.
const components: [string, (logger: CapturingLogger, tag: string) => Promise<void>][] = [
  [
    "InProcessQueueWakeup (a failing listener)",
    async (logger, tag) => {
      const wakeup = new InProcessQueueWakeup({ logger });
      wakeup.subscribe(() => {
        throw new Error(tag);
      });
      await wakeup.notify({ tenantId: "t", assistantId: "a", threadId: tag });
      await new Promise((resolve) => setImmediate(resolve));
    },
  ],
  [
    "TaskLifecycleNotifier (a failing append)",
    async (logger, tag) => {
      const failing = { append: async () => Promise.reject(new Error(tag)) } as unknown as OutboxStore;
      await new TaskLifecycleNotifier({ outbox: failing, logger }).publish(event);
    },
  ],
  [
    "RetentionJob (a failing prune)",
    async (logger, tag) => {
      await new RetentionJob({ subject: "run", retentionHours: 1, logger, prune: async () => Promise.reject(new Error(tag)) }).runOnce();
    },
  ],
];

describe.each(components)("%s", (_, logOnce) => {
  it("two instances given different loggers log to their own only", async () => {
    const [first, second] = [recordingLogger(), recordingLogger()];
    await logOnce(first.logger, "first");
    await logOnce(second.logger, "second");
    const tags = (entries: typeof first.entries) => entries.map((entry) => ((entry.fields as { err?: Error }).err as Error).message);
    expect(tags(first.entries)).toEqual(["first"]);
    expect(tags(second.entries)).toEqual(["second"]);
  });
});
