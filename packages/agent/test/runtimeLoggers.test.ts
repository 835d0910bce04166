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
});
