import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { createThreads, startLongRun } from "../harness/workloads";

describe("scenario 12: graceful shutdown", () => {
  const cluster = useCluster();

  it("SIGTERM during a run: the replica exits 0 and a peer completes the run", async () => {
    const replicas = await cluster.start(2);
    await createThreads(replicas[0].url, ["shutdown"]);
    const ownerId = await startLongRun(replicas[0].url, "shutdown", "long", 3_000);
    const owner = replicas.find((replica) => replica.replicaId === ownerId)!;
    const peer = replicas.find((replica) => replica !== owner)!;

    const stoppedAt = Date.now();
    expect(await owner.stop("SIGTERM")).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);

    const runs = await eventually(
      async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", "/api/threads/shutdown/runs"));
        return runs.length === 1 && runs[0].finished_at ? runs : undefined;
      },
      20_000,
      "the run completed on the peer",
    );
    expect(runs[0]).toMatchObject({ message_id: "long", status: "success", replica_id: peer.replicaId });
    const state = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(peer.url, "GET", "/api/threads/shutdown/state"));
    expect(state.messages.filter((message) => message.type === "human")).toHaveLength(1);
  });
});
