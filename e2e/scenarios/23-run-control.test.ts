// Scenario 23, run control from anywhere (issue 23): three replicas on PostgreSQL behind the
// documented nginx, round-robin with no affinity header. Aborts and `interrupt`-strategy messages
// reach the replica running the thread, wherever they land, and the run record says `aborted`. An
// abort sent while the replica running the thread lies dead is not lost: the replica taking the
// thread over applies it, once, and the message never runs to success.
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { isHeld, readRunLeases } from "../harness/runLeases";
import { ASSISTANT, createThreads, startLongRun } from "../harness/workloads";

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 23 needs nginx, which is not installed (e.g. `apt-get install nginx`); CI installs it");

/** Enough threads that round-robin sends some controls to a replica not running the thread (all to the owner: 3^-9). */
const THREADS = 9;
/** A short run lease for the aimed kill: the takeover comes within seconds. */
const RUN_LEASE_MS = 4_000;

interface AbortAnswer {
  aborted: boolean;
  requested?: true;
  message_id?: string;
  status?: string;
}

describe.skipIf(nginxMissing)("scenario 23: run control from any replica, behind round-robin", () => {
  const cluster = useCluster();
  let balancer: LoadBalancer | undefined;

  const startBehindBalancer = async (env: Record<string, string> = {}) => {
    const replicas = await cluster.start(3, { env });
    balancer = await LoadBalancer.start(replicas);
    return { replicas, lb: balancer.url };
  };

  const stopBalancer = async () => {
    await balancer?.stop();
    balancer = undefined;
  };

  /** THREADS threads, each running a long message `<thread>-long`; answers who runs each. */
  const startLongRuns = async (lb: string, prefix: string) => {
    const threadIds = Array.from({ length: THREADS }, (_, i) => `${prefix}-${i}`);
    await createThreads(lb, threadIds);
    const owners = new Map<string, string>();
    for (const threadId of threadIds) owners.set(threadId, await startLongRun(lb, threadId, `${threadId}-long`, 600_000));
    return { threadIds, owners };
  };

  const runsOf = async (url: string, threadId: string) => (await expectOk<{ runs: RunRecord[] }>(call(url, "GET", `/api/threads/${threadId}/runs`))).runs;
  const statesOf = async (url: string, threadId: string) =>
    (await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(url, "GET", `/api/threads/${threadId}/state`))).messages;

  it("with the default settings, aborts sent through the balancer stop each run where it runs; its record says aborted", async () => {
    try {
      const { lb } = await startBehindBalancer();
      const { threadIds, owners } = await startLongRuns(lb, "abort");

      const servedByNonOwner: string[] = [];
      await Promise.all(
        threadIds.map(async (threadId) => {
          const response = await call(lb, "POST", "/api/runs/abort", { assistant_id: ASSISTANT, thread_id: threadId });
          expect(response.status, response.text).toBe(200);
          expect(response.json<AbortAnswer>()).toEqual({ success: true, aborted: true, message_id: `${threadId}-long`, status: "aborted" });
          if (response.headers.get("x-axiom-replica") !== owners.get(threadId)) servedByNonOwner.push(threadId);
        }),
      );
      expect(servedByNonOwner.length).toBeGreaterThan(0);

      for (const threadId of threadIds) {
        const runs = await runsOf(lb, threadId);
        // Stopped on the replica running it, recorded once, with the request on the record.
        expect(runs).toEqual([expect.objectContaining({ message_id: `${threadId}-long`, status: "aborted", replica_id: owners.get(threadId), error: "Run aborted" })]);
        expect((runs[0] as RunRecord & { abort_requested_at: string | null }).abort_requested_at).not.toBeNull();
      }
      // Aborted, not stuck: the next message on an aborted thread runs, wherever it lands.
      const next = await expectOk<{ status: string }>(
        call(lb, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: threadIds[0], message: "after the abort", mode: "wait" }),
      );
      expect(next.status).toBe("success");
    } finally {
      await stopBalancer();
    }
  });

  it("interrupt-strategy messages sent through the balancer abort each run where it runs, then run first", async () => {
    try {
      const { lb } = await startBehindBalancer();
      const { threadIds, owners } = await startLongRuns(lb, "interrupt");

      await Promise.all(
        threadIds.map(async (threadId) => {
          const urgent = await expectOk<{ status: string }>(
            call(lb, "POST", "/api/runs", {
              assistant_id: ASSISTANT,
              thread_id: threadId,
              message: "urgent",
              message_id: `${threadId}-urgent`,
              mode: "wait",
              multitask_strategy: "interrupt",
            }),
          );
          expect(urgent.status).toBe("success");
        }),
      );
      for (const threadId of threadIds) {
        const runs = await runsOf(lb, threadId);
        expect(runs.map((listed) => [listed.message_id, listed.status])).toEqual([
          [`${threadId}-long`, "aborted"],
          [`${threadId}-urgent`, "success"],
        ]);
        expect(runs[0].replica_id).toBe(owners.get(threadId));
      }
    } finally {
      await stopBalancer();
    }
  });

  it("aimed kill: the replica running the thread is killed, the abort goes to a survivor before the takeover, and the replica taking over applies it once", async () => {
    try {
      const { replicas, lb } = await startBehindBalancer({ AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS) });
      const pool = await cluster.sql();
      await createThreads(lb, ["doomed"]);
      const ownerId = await startLongRun(lb, "doomed", "doomed-long", 600_000);
      const owner = replicas.find((replica) => replica.replicaId === ownerId)!;
      const survivor = replicas.find((replica) => replica !== owner)!;

      // Aimed right after its lease was renewed: it stays the holder, dead, for the whole lease.
      const started = await readRunLeases(pool, "doomed", "doomed-long");
      await eventually(async () => {
        const run = await readRunLeases(pool, "doomed", "doomed-long");
        return run?.leaseRenewedMs !== started?.leaseRenewedMs ? true : undefined;
      }, RUN_LEASE_MS, "the owner's lease renewed");
      await owner.stop("SIGKILL");
      expect(isHeld(await readRunLeases(pool, "doomed", "doomed-long"))).toBe(true);

      const abort = await call(survivor.url, "POST", "/api/runs/abort", { assistant_id: ASSISTANT, thread_id: "doomed" });
      // Half the lease passed without an end: nobody alive runs it yet.
      expect(abort.status, abort.text).toBe(202);
      expect(abort.json<AbortAnswer>()).toEqual({ success: true, aborted: false, requested: true, message_id: "doomed-long" });
      const pending = await readRunLeases(pool, "doomed", "doomed-long");
      expect(pending).toMatchObject({ status: "processing", claimReplicaId: ownerId });

      // A survivor's sweep takes the thread once the dead lease expired, and applies the request.
      const runs = await eventually(
        async () => {
          const listed = await runsOf(survivor.url, "doomed");
          return listed[0]?.status === "aborted" ? listed : undefined;
        },
        RUN_LEASE_MS * 5,
        "the abort applied by the replica taking over",
      );
      expect(runs).toEqual([expect.objectContaining({ message_id: "doomed-long", status: "aborted", error: "Run aborted" })]);
      // It never ran again: no answer in the thread, not even after another lease period.
      await new Promise((resolve) => setTimeout(resolve, RUN_LEASE_MS));
      expect(await runsOf(lb, "doomed")).toEqual(runs);
      expect((await statesOf(lb, "doomed")).filter((message) => message.type === "ai")).toEqual([]);
      const { processing, pending: waiting } = await expectOk<{ processing: unknown[]; pending: unknown[] }>(call(lb, "GET", "/api/threads/doomed/queue"));
      expect([processing, waiting]).toEqual([[], []]);

      // Asked again, through the balancer: the outcome, as recorded.
      const again = await call(lb, "POST", "/api/runs/abort", { assistant_id: ASSISTANT, thread_id: "doomed", message_id: "doomed-long" });
      expect(again.json<AbortAnswer>()).toEqual({ success: true, aborted: true, message_id: "doomed-long", status: "aborted" });
      const next = await expectOk<{ status: string; messages: Array<{ content: string }> }>(
        call(lb, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: "doomed", message: "still here", mode: "wait" }),
      );
      expect(next).toMatchObject({ status: "success", messages: [{ content: "still here" }, { content: "echo: still here" }] });
    } finally {
      await stopBalancer();
    }
  });
});
