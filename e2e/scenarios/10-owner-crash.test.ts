import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { createThreads, startLongRun } from "../harness/workloads";

const RUN_LEASE_MS = 3_000;

describe("scenario 10: crash of a run's owner", () => {
  const cluster = useCluster();

  it("kill -9 of the replica running a long run: a peer reclaims it after the lease TTL and completes it once", async () => {
    const replicas = await cluster.start(2, { env: { AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS) } });
    await createThreads(replicas[0].url, ["crash"]);
    const ownerId = await startLongRun(replicas[0].url, "crash", "long", 4_000);
    const owner = replicas.find((replica) => replica.replicaId === ownerId)!;
    const peer = replicas.find((replica) => replica !== owner)!;

    await owner.stop("SIGKILL");
    const killedAt = Date.now();
    const runs = await eventually(
      async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", "/api/threads/crash/runs"));
        return runs.length === 1 && runs[0].finished_at ? runs : undefined;
      },
      30_000,
      "the peer completed the run",
    );
    expect(runs[0]).toMatchObject({ message_id: "long", status: "success", replica_id: peer.replicaId });
    // Not before the dead owner's leases expired: renewed every third of the TTL, they outlive the
    // kill by up to two thirds of it (less when a loaded machine delays a renewal, or the kill's end).
    expect(Date.parse(runs[0].started_at!)).toBeGreaterThanOrEqual(killedAt + RUN_LEASE_MS / 3);

    // Nothing lost, nothing run twice: one question, one answer.
    const state = await expectOk<{ messages: Array<{ type: string }> }>(call(peer.url, "GET", "/api/threads/crash/state"));
    expect(state.messages.map((message) => message.type)).toEqual(["human", "ai"]);
  });
});
