import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk, parseSse } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT, createThreads, startLongRun } from "../harness/workloads";

const GRACE_MS = 300;

describe("scenario 4: thread ownership and affinity", () => {
  const cluster = useCluster();

  it("answers affinity_miss naming the owner after the grace period; the owner still processes the message; an abort needs no affinity", async () => {
    // Strict affinity: by default a non-owner follows the run through the run event log instead.
    const replicas = await cluster.start(2, { env: { AXIOM_AFFINITY_GRACE_MS: String(GRACE_MS), AXIOM_STREAM_RELAY: "off" } });
    await createThreads(replicas[0].url, ["owned"]);
    const ownerId = await startLongRun(replicas[0].url, "owned", "long", 4_000);
    const owner = replicas.find((replica) => replica.replicaId === ownerId)!;
    const other = replicas.find((replica) => replica !== owner)!;

    const startedAt = Date.now();
    const miss = await call(
      other.url,
      "POST",
      "/api/runs",
      { assistant_id: ASSISTANT, thread_id: "owned", message: "second", message_id: "second", mode: "stream" },
      { "x-axiom-affinity": owner.replicaId },
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(miss.status).toBe(200);
    expect(miss.headers.get("x-axiom-replica")).toBe(other.replicaId);
    expect(miss.headers.get("x-axiom-affinity-echo")).toBe(owner.replicaId);
    expect(parseSse(miss.text)).toEqual([{ type: "affinity_miss", data: { code: "AFFINITY_MISS", owner: owner.replicaId, thread_id: "owned", message_id: "second" } }]);

    const invalid = await call(
      other.url,
      "POST",
      "/api/runs/resume_stream",
      { assistant_id: ASSISTANT, thread_id: "owned", message_id: "long" },
      { "x-axiom-affinity": "not a valid value!" },
    );
    expect(invalid.headers.get("x-axiom-affinity-echo")).toBeNull();
    expect(parseSse(invalid.text)[0]).toMatchObject({ type: "affinity_miss", data: { owner: owner.replicaId } });

    // Run control needs no affinity, strict or not: the peer records the abort, the owner applies it.
    const abort = await call(other.url, "POST", "/api/runs/abort", { assistant_id: ASSISTANT, thread_id: "owned" });
    expect(abort.status, abort.text).toBe(200);
    expect(abort.json()).toEqual({ success: true, aborted: true, message_id: "long", status: "aborted" });

    const runs = await eventually(
      async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(owner.url, "GET", "/api/threads/owned/runs"));
        return runs.length === 2 && runs.every((run) => run.finished_at) ? runs : undefined;
      },
      20_000,
      "both runs finished",
    );
    expect(runs.find((run) => run.message_id === "long")).toMatchObject({ status: "aborted", replica_id: owner.replicaId });
    expect(runs.find((run) => run.message_id === "second")).toMatchObject({ status: "success", replica_id: owner.replicaId });
  });
});
