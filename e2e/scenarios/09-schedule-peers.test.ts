import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT, createThreads } from "../harness/workloads";

describe("scenario 9 (part): schedule changes reach peers through the outbox", () => {
  const cluster = useCluster();

  it("a schedule created on replica A fires on replica B after A died", async () => {
    const [a, b] = await cluster.start(2);
    await createThreads(a.url, ["scheduled"]);
    const created = await expectOk<{ id: string }>(
      call(a.url, "POST", "/api/schedules", {
        task_type: "agent-message",
        delay_ms: 3_000,
        payload: { assistant_id: ASSISTANT, thread_id: "scheduled", message: "wake up" },
      }),
      201,
    );
    // B started before the schedule existed: it can fire it only if A's schedule-changed event reached it.
    await a.stop("SIGKILL");

    const runs = await eventually(
      async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(b.url, "GET", "/api/threads/scheduled/runs"));
        return runs.length > 0 && runs.every((run) => run.finished_at) ? runs : undefined;
      },
      20_000,
      "the scheduled message ran on B",
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "success", replica_id: b.replicaId, message_id: expect.stringContaining(created.id) });
    // The fire settles just after its run's record completes.
    await eventually(
      async () => ((await expectOk<{ status: string }>(call(b.url, "GET", `/api/schedules/${created.id}`))).status === "completed" ? true : undefined),
      10_000,
      "the schedule completed",
    );
  });
});
