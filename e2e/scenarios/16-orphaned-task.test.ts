import { describe, expect, it } from "vitest";
import { call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

const RUN_LEASE_MS = 3_000;
const CALLER_THREAD = "planning";

interface Task {
  id: string;
  status: string;
  failure_reason?: string;
  context?: Record<string, unknown>;
}

describe("scenario 16: a task orphaned by a replica's death", () => {
  const cluster = useCluster();

  it("kill -9 of the replica running a delegated task: a replica restarted with AXIOM_TASK_ORPHAN_RECOVERY=true fails it as orphaned and the caller resumes once", async () => {
    const env = { AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS), AXIOM_TASK_ORPHAN_RECOVERY: "true" };
    const [first] = await cluster.start(1, { env, prefix: "solo" });
    for (const id of ["planner", "worker"]) await expectOk(call(first.url, "POST", "/api/assistants", { id, name: id }), 201);
    await expectOk(call(first.url, "POST", "/api/threads", { thread_id: CALLER_THREAD, assistant_id: "planner" }), 201);
    // The planner delegates a task that runs for a minute; its own run waits for the outcome.
    await expectOk(
      call(first.url, "POST", "/api/runs", { assistant_id: "planner", thread_id: CALLER_THREAD, message: "/task worker /sleep 60000", mode: "queue" }),
      202,
    );
    const db = await cluster.sql();
    const task = await eventually(
      async () => {
        const { tasks } = await expectOk<{ tasks: Task[] }>(call(first.url, "GET", "/api/tasks?owner_id=worker"));
        if (tasks[0]?.status !== "in_progress") return undefined;
        // Running: its start message is claimed on the task's thread.
        const { rows } = await db.query("SELECT 1 FROM lattice_thread_message_queue WHERE thread_id = $1 AND status = 'processing'", [`task-${tasks[0].id}`]);
        return rows.length === 1 ? tasks[0] : undefined;
      },
      20_000,
      "the delegated task to be running",
    );

    await first.stop("SIGKILL");
    // The dead replica held startup recovery for its 5-minute hold; an operator restarting later
    // finds it lapsed. Let it lapse now instead of waiting, and let the run leases expire.
    await db.query("UPDATE lattice_leases SET expires_at = now() WHERE key = 'leader:startup-recovery'");
    await new Promise((resolve) => setTimeout(resolve, RUN_LEASE_MS + 500));
    const restarted = cluster.add({ replicaId: "solo-restarted", databaseUrl: (await cluster.database()).url, env });
    await restarted.waitReady();

    const failed = await expectOk<Task>(call(restarted.url, "GET", `/api/tasks/${task.id}`));
    expect(failed).toMatchObject({ status: "failed", failure_reason: expect.stringContaining("Orphaned"), context: { recovered_by: "system:orphan-recovery" } });

    // The planner resumes with the failure, once.
    const state = await eventually(
      async () => {
        const current = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(restarted.url, "GET", `/api/threads/${CALLER_THREAD}/state`));
        return current.messages.at(-1)?.type === "ai" && current.messages.at(-1)?.content.includes("returned") ? current : undefined;
      },
      20_000,
      "the planner to resume",
    );
    expect(state.messages.at(-1)?.content).toContain('"status":"failed"');
    // Some time for a second resume or a re-run of the dead task to show up, if either happened.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const { rows: resumes } = await db.query("SELECT id, status FROM lattice_thread_message_queue WHERE thread_id = $1 AND id = $2", [CALLER_THREAD, `task-${task.id}-resume`]);
    expect(resumes).toEqual([{ id: `task-${task.id}-resume`, status: "completed" }]);
    const after = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(restarted.url, "GET", `/api/threads/${CALLER_THREAD}/state`));
    expect(after.messages.filter((message) => message.content.includes("returned"))).toHaveLength(1);
    expect(await expectOk<Task>(call(restarted.url, "GET", `/api/tasks/${task.id}`))).toMatchObject({ status: "failed" });
    const { rows: leftovers } = await db.query("SELECT id FROM lattice_thread_message_queue WHERE thread_id = $1 AND status <> 'completed'", [`task-${task.id}`]);
    expect(leftovers).toEqual([]);
  });
});
