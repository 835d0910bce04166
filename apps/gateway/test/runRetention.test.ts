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
  it("prunes the runtime's queue store with AXIOM_RUN_RETENTION_HOURS, from the background work to close()", async () => {
    const {
      runRetention,
      stores: { queue },
      startBackground,
      close,
    } = await runtimeWith({ AXIOM_RUN_RETENTION_HOURS: "5" });
    const prune = vi.spyOn(queue, "pruneRunsOlderThan");
    const [start, stop] = [vi.spyOn(runRetention, "start"), vi.spyOn(runRetention, "stop")];

    expect(runRetention.retentionMs).toBe(5 * HOUR);
    await runRetention.runOnce();
    expect(prune).toHaveBeenCalledWith(5 * HOUR);
    await startBackground();
    expect(start).toHaveBeenCalledOnce();
    await close();
    expect(stop).toHaveBeenCalledOnce();
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
});
