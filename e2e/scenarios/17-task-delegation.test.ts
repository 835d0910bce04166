import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

// A's one run slot stays taken this long by the busy thread: far longer than B needs to start and
// run the callee, and never waited for (the test ends once the caller resumed; the cluster kills A).
const BUSY_MS = 60_000;

interface Message {
  id?: string;
  type: string;
  content: string;
}

const runsOf = async (url: string, threadId: string) =>
  (await expectOk<{ runs: RunRecord[] }>(call(url, "GET", `/api/threads/${threadId}/runs`))).runs;

describe("scenario 17: task delegation across processes", () => {
  const cluster = useCluster();

  it("a caller on A delegates to a callee that runs on B, and resumes exactly once with its result", async () => {
    // The layout is forced, not hoped for. A runs one thread at a time, and a thread waits for a slot
    // before it takes its run lease; threads take turns between runs. While the caller's first run
    // sleeps on A, the busy thread queues behind it and runs its short first run; the delegation, run
    // next, wakes the callee's thread behind the busy one. A then runs the busy thread's long run, and
    // the callee's thread waits for A's slot without a lease. B starts only then: its queue sweep finds
    // the callee's message unowned and runs it (B never heard of the busy thread while it was free to take).
    const [a] = await cluster.start(1, { prefix: "caller", env: { AXIOM_MAX_CONCURRENT_RUNS: "1" } });
    for (const id of ["boss", "helper"]) await expectOk(call(a.url, "POST", "/api/assistants", { id, name: id }), 201);
    for (const thread_id of ["boss-thread", "busy-thread"]) await expectOk(call(a.url, "POST", "/api/threads", { thread_id, assistant_id: "boss" }), 201);
    const queue = (thread_id: string, message: string, message_id: string) =>
      expectOk(call(a.url, "POST", "/api/runs", { assistant_id: "boss", thread_id, message, message_id, mode: "queue" }), 202);
    await queue("boss-thread", "/sleep 1500", "warm-up");
    await queue("boss-thread", "/task helper check the figures", "delegate");
    await queue("busy-thread", "/sleep 1500", "busy-short");
    await queue("busy-thread", `/sleep ${BUSY_MS}`, "busy");
    await eventually(
      async () => ((await runsOf(a.url, "busy-thread")).some((run) => run.message_id === "busy" && run.replica_id === a.replicaId && !run.finished_at) ? true : undefined),
      30_000,
      "A running the busy thread's long run",
    );
    const [b] = await cluster.start(1, { prefix: "callee" });

    const { tasks } = await expectOk<{ tasks: Array<{ id: string }> }>(call(b.url, "GET", "/api/tasks?owner_id=helper"));
    expect(tasks).toHaveLength(1);
    const [{ id: taskId }] = tasks;
    const resumeId = `task-${taskId}-resume`;
    const callerRuns = await eventually(
      async () => {
        const runs = await runsOf(b.url, "boss-thread");
        return runs.some((run) => run.message_id === resumeId && run.finished_at) ? runs : undefined;
      },
      60_000,
      "the caller resumed",
    );
    expect(await expectOk(call(b.url, "GET", `/api/tasks/${taskId}`))).toMatchObject({ status: "completed", result: "echo: check the figures" });
    const calleeRuns = await expectOk<{ runs: RunRecord[] }>(call(b.url, "GET", `/api/tasks/${taskId}/runs`));
    expect(calleeRuns.runs.map((run) => [run.replica_id, run.status])).toEqual([[b.replicaId, "success"]]);
    // The resume runs wherever the caller's thread is claimed next: B, as A is still busy.
    expect(callerRuns.map((run) => [run.message_id, run.replica_id, run.status])).toEqual([
      ["warm-up", a.replicaId, "success"],
      ["delegate", a.replicaId, "interrupted"],
      [resumeId, b.replicaId, "success"],
    ]);

    const { messages } = await expectOk<{ messages: Message[] }>(call(a.url, "GET", "/api/threads/boss-thread/state"));
    const outcome = { taskId, status: "completed", result: "echo: check the figures" };
    expect(messages.filter((message) => message.type === "tool").map((message) => JSON.parse(message.content))).toEqual([outcome]);
    const answer = messages.at(-1)!;
    expect(answer.type).toBe("ai");
    expect(answer.content.startsWith("task returned: ")).toBe(true);
    expect(JSON.parse(answer.content.slice("task returned: ".length))).toEqual(outcome);
  });

  it("a project task whose run delegates is settled by its resumed run: completed with the callee's outcome", async () => {
    const [a, b] = await cluster.start(2, { prefix: "project" });
    for (const id of ["lead", "aide"]) await expectOk(call(a.url, "POST", "/api/assistants", { id, name: id }), 201);
    await expectOk(call(a.url, "POST", "/api/projects", { id: "launch", name: "Launch" }), 201);
    await expectOk(call(a.url, "PUT", "/api/projects/launch/bots/lead"));
    await expectOk(call(a.url, "POST", "/api/tasks", { id: "d1", title: "d1", description: "/task aide /sleep 300", owner_type: "agent", owner_id: "lead", project_id: "launch" }), 201);
    await expectOk(call(b.url, "POST", "/api/tasks/d1/dispatch"));

    const outcome = await eventually(
      async () => {
        const current = await expectOk<{ status: string; result?: unknown }>(call(b.url, "GET", "/api/tasks/d1/result"));
        return current.status === "completed" ? current : undefined;
      },
      20_000,
      "d1 to complete",
    );
    const { tasks } = await expectOk<{ tasks: Array<{ id: string }> }>(call(a.url, "GET", "/api/tasks?parent_id=d1"));
    expect(tasks).toHaveLength(1);
    const callee = { taskId: tasks[0]!.id, status: "completed", result: "echo: /sleep 300" };
    expect(JSON.parse(String(outcome.result).slice("task returned: ".length))).toEqual(callee);
    const runs = await eventually(
      async () => {
        const listed = (await expectOk<{ runs: RunRecord[] }>(call(a.url, "GET", "/api/tasks/d1/runs"))).runs;
        return listed.every((run) => run.finished_at) ? listed : undefined;
      },
      5_000,
      "d1's runs to finish",
    );
    expect(runs.map((run) => [run.message_id.replace(/-\d+$/, ""), run.status])).toEqual([
      ["task-d1-start", "interrupted"],
      ["task-d1-resume-run", "success"],
    ]);
  });
});
