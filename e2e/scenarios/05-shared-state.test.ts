import { describe, expect, it } from "vitest";
import { type RunRecord, call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { createThreads, runTurn, waitUntilReleased } from "../harness/workloads";

describe("scenario 5: shared conversation state", () => {
  const cluster = useCluster();

  it("turn 2 on replica B sees turn 1 run on replica A", async () => {
    const [a, b] = await cluster.start(2);
    await createThreads(a.url, ["shared"]);
    await runTurn(a.url, "shared", "turn one", "turn-1");
    await waitUntilReleased(a.url, "shared");
    // A stops, so turn 2 runs on B for certain (a live A may win B's wake-up), from what A stored alone.
    expect(await a.stop("SIGTERM")).toBe(0);
    expect(await runTurn(b.url, "shared", "turn two", "turn-2")).toEqual(["turn one", "echo: turn one", "turn two", "echo: turn two"]);

    const { runs } = await expectOk<{ runs: RunRecord[] }>(call(b.url, "GET", "/api/threads/shared/runs"));
    expect(Object.fromEntries(runs.map((run) => [run.message_id, run.replica_id]))).toEqual({ "turn-1": a.replicaId, "turn-2": b.replicaId });
  });
});
