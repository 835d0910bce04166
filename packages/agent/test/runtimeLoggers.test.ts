import { recordingLogger } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { manager, sharedStores, shutdownManagers, thread } from "./support";

afterEach(() => shutdownManagers());

describe("each runtime logs to the logger it was built with", () => {
  it("two runtimes in one process, given different loggers: each failed run is logged by its own runtime's logger alone", async () => {
    const [first, second] = [recordingLogger(), recordingLogger()];
    const runtimes = [manager(await sharedStores(), { logger: first.logger }), manager(await sharedStores(), { logger: second.logger })];

    const ids: string[] = [];
    for (const [i, runtime] of runtimes.entries()) {
      const { messageId, completion } = await runtime.getAgent(thread(`t${i}`)).addMessage({ message: `/fail refused ${i}` }, { mode: "wait" });
      await completion;
      ids.push(messageId);
    }

    const failures = (entries: typeof first.entries) => entries.filter((entry) => entry.msg === "run failed").map((entry) => (entry.fields as { messageId: string }).messageId);
    expect(failures(first.entries)).toEqual([ids[0]]);
    expect(failures(second.entries)).toEqual([ids[1]]);
  });

  it("logs a failed run's reason at warn, and its stack only at debug", async () => {
    const { logger, entries } = recordingLogger();
    const runtime = manager(await sharedStores(), { logger });
    const failed = await runtime.getAgent(thread("ends")).addMessage({ message: "/fail the model is down" }, { mode: "wait" });
    await failed.completion;

    const failure = entries.find((entry) => entry.msg === "run failed");
    expect(failure).toMatchObject({ level: "warn", fields: { messageId: failed.messageId, error: expect.stringContaining("the model is down") } });
    expect(failure?.fields).not.toHaveProperty("err");
    expect(entries.find((entry) => entry.msg === "run failed: stack")).toMatchObject({ level: "debug" });
  });
});
