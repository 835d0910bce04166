import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT, createThreads, startLongRun } from "../harness/workloads";

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

  it("kill -9 of a replica with a thread waiting for its run slot, every peer slot taken: a peer takes it up once it waited the lease TTL", async () => {
    // One run slot each; the peers' sweeps take up a thread with no owner only with a slot free, or
    // once it waited AXIOM_RUN_LEASE_MS: the age bound is what gets the orphan into the peer's line.
    const replicas = await cluster.start(2, { env: { AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS), AXIOM_MAX_CONCURRENT_RUNS: "1" } });
    const [victim, peer] = replicas;
    await createThreads(victim.url, ["peer-busy", "victim-busy", "waiting", "later"]);
    await startLongRun(peer.url, "peer-busy", "peer-busy", 10_000);
    await startLongRun(victim.url, "victim-busy", "victim-busy", 4_000);
    const queuedAt = Date.now();
    await expectOk(call(victim.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: "waiting", message: "hello", message_id: "waiting", mode: "queue" }), 202);
    // Past the peer wake-up delay: the peer, told while its slot was taken, left the thread at its sender.
    await sleep(500);
    await victim.stop("SIGKILL");

    // Queued at the peer after its sweep took the orphan up (lease TTL + a pass), before its slot frees:
    // the peer's line is first come, first served, so the orphan runs first.
    await sleep(Math.max(0, queuedAt + RUN_LEASE_MS + 4_500 - Date.now()));
    await expectOk(call(peer.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: "later", message: "hello", message_id: "later", mode: "queue" }), 202);

    const runsOf = async (threadId: string) => (await expectOk<{ runs: RunRecord[] }>(call(peer.url, "GET", `/api/threads/${threadId}/runs`))).runs;
    const finished = await eventually(
      async () => {
        const all = await Promise.all(["peer-busy", "victim-busy", "waiting", "later"].map(runsOf));
        return all.every((runs) => runs.length === 1 && runs[0].finished_at) ? all.map((runs) => runs[0]) : undefined;
      },
      60_000,
      "every run finished on the peer",
    );
    // Each message ran once, to success, on the peer (the victim's long run taken over from its checkpoint).
    for (const run of finished) expect(run).toMatchObject({ status: "success", replica_id: peer.replicaId });
    const [, , waiting, later] = finished;
    expect(Date.parse(waiting.started_at!)).toBeLessThan(Date.parse(later.started_at!));
  });
});
