import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src";
import { type GatewayContext, createGatewayContext } from "../src/context/gatewayContext";
import { createGatewayLogger } from "../src/server";

const HOUR = 60 * 60 * 1_000;

let runtime: GatewayContext | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  vi.restoreAllMocks();
});

const runtimeWith = async (env: Record<string, string>) => {
  const config = loadConfig({ LOG_LEVEL: "silent", ...env });
  return (runtime = await createGatewayContext(config, createGatewayLogger(config)));
};

describe("run retention in the gateway runtime", () => {
  it("prunes the runtime's queue store with AXIOM_RUN_RETENTION_HOURS, as a task of the maintenance loop", async () => {
    const {
      runRetention,
      maintenance,
      stores: { queue },
      startBackground,
      close,
    } = await runtimeWith({ AXIOM_RUN_RETENTION_HOURS: "5" });
    const prune = vi.spyOn(queue, "pruneRunsOlderThan");

    expect(runRetention.retentionMs).toBe(5 * HOUR);
    expect(runRetention.maintenanceTasks()).toEqual([runRetention]);
    await runRetention.runOnce();
    expect(prune).toHaveBeenCalledWith(5 * HOUR);
    await startBackground();
    await vi.waitFor(() => expect(maintenance.leading).toBe(true));
    await close();
    expect(maintenance.leading).toBe(false);
  });

  it("keeps a week of runs by default, and none is pruned when set to 0", async () => {
    expect((await runtimeWith({})).runRetention.retentionMs).toBe(168 * HOUR);
    await runtime!.close();

    const {
      runRetention,
      stores: { queue },
    } = await runtimeWith({ AXIOM_RUN_RETENTION_HOURS: "0" });
    const prune = vi.spyOn(queue, "pruneRunsOlderThan");
    expect(runRetention.enabled).toBe(false);
    expect(await runRetention.runOnce()).toBe(0);
    expect(prune).not.toHaveBeenCalled();
  });

  it("prunes the run event log with AXIOM_RUN_EVENT_RETENTION_HOURS (a day by default), as a task of the maintenance loop", async () => {
    expect((await runtimeWith({})).runEventRetention.retentionMs).toBe(24 * HOUR);
    await runtime!.close();

    const {
      runEventRetention,
      stores: { runEvents },
    } = await runtimeWith({ AXIOM_RUN_EVENT_RETENTION_HOURS: "3" });
    const prune = vi.spyOn(runEvents, "pruneOlderThan");
    expect(runEventRetention.maintenanceTasks()).toEqual([runEventRetention]);
    await runEventRetention.runOnce();
    expect(prune).toHaveBeenCalledWith(3 * HOUR);
  });
});
