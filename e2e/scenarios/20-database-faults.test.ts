// Scenario 20, database faults: three replicas reach PostgreSQL through a TCP proxy the test breaks
// while they run a workload: random backends terminated, every connection cut at once, an 8 s
// black-out (a partition: connections hang, nothing is refused), then only the LISTEN connections
// killed. No replica exits, no request hangs (each answers within the connect and statement
// timeouts), /ready answers 503 promptly during the black-out (its check times out at 800 ms) and
// 200 within seconds after, a wake-up sent while the LISTEN connections were down is not lost, and
// every accepted message is answered exactly once: a run a database error cut short is run again,
// never failed.
import { randomInt } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { TcpProxy } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT, createThreads, startLongRun } from "../harness/workloads";

const REPLICAS = 3;
const THREADS = 12;
const BLACKOUT_MS = 8_000;
const HUNG_MS = 30_000;
const ENV = { AXIOM_RUN_LEASE_MS: "3000", DATABASE_CONNECT_TIMEOUT_MS: "2000", DATABASE_STATEMENT_TIMEOUT_MS: "5000" };

/** Queued messages sent to random replicas until stopped, each request timed. */
class Workload {
  readonly accepted: Array<{ threadId: string; text: string }> = [];
  readonly statuses: Record<string, number> = {};
  hung = 0;
  private running = true;
  private readonly done: Promise<void>;

  constructor(urls: string[], threadIds: string[]) {
    this.done = Promise.all(threadIds.map((threadId) => this.feed(urls, threadId))).then(() => undefined);
  }

  private async feed(urls: string[], threadId: string): Promise<void> {
    for (let m = 0; this.running; m++) {
      const text = `${threadId} m${m}`;
      const startedAt = Date.now();
      const body = { assistant_id: ASSISTANT, thread_id: threadId, message: text, message_id: `${threadId}-m${m}`, mode: "queue" };
      const status = await call(urls[randomInt(urls.length)], "POST", "/api/runs", body).then((response) => response.status, () => "network");
      if (Date.now() - startedAt > HUNG_MS) this.hung++;
      this.statuses[status] = (this.statuses[status] ?? 0) + 1;
      if (status === 202) this.accepted.push({ threadId, text });
      await sleep(randomInt(100, 400));
    }
  }

  stop(): Promise<void> {
    this.running = false;
    return this.done;
  }
}

describe("scenario 20: database faults", () => {
  const cluster = useCluster();

  it("3 replicas through backend kills, a cut of every connection, an 8 s black-out and killed LISTEN connections: none exits, nothing hangs, readiness follows the database, no wake-up is lost", async () => {
    const database = await cluster.database();
    const proxy = await TcpProxy.forUrl(database.url);
    try {
      const replicas = await cluster.start(REPLICAS, { env: { ...ENV, DATABASE_URL: proxy.url(database.url) } });
      const urls = replicas.map((replica) => replica.url);
      const admin = await cluster.sql();
      const threadIds = Array.from({ length: THREADS }, (_, i) => `thread-${i}`);
      await createThreads(urls[0], threadIds);
      const log = (line: string) => process.stdout.write(`faults: ${line}\n`);
      // The replicas' backends (pooled, and LISTEN: lattice-queue-wakeup, lattice-outbox-listener), not the test's own.
      const gatewayBackends = (extra = "") =>
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'lattice-%' ${extra}`;

      const workload = new Workload(urls, threadIds);
      await sleep(2_000);

      // 1. Random backends terminated, again and again.
      for (let i = 0; i < 8; i++) {
        const { rowCount } = await admin.query(`${gatewayBackends()} AND random() < 0.3`);
        log(`killed ${rowCount} backends`);
        await sleep(randomInt(300, 1_000));
      }
      // 2. Every connection cut at once.
      proxy.cut();
      log("cut every connection");
      await sleep(3_000);

      // 3. Black-out: /ready must say so, promptly, on every replica.
      proxy.pause();
      log("black-out");
      const probes: Array<{ status: number; ms: number }> = [];
      const blackoutEnds = Date.now() + BLACKOUT_MS;
      await sleep(1_000); // the first probes may still see the last good answers
      while (Date.now() < blackoutEnds - 500) {
        await Promise.all(
          urls.map(async (url) => {
            const startedAt = Date.now();
            const response = await fetch(`${url}/ready`);
            probes.push({ status: response.status, ms: Date.now() - startedAt });
          }),
        );
        await sleep(500);
      }
      proxy.resume();
      const resumedAt = Date.now();
      await Promise.all(
        urls.map((url) => eventually(async () => ((await fetch(`${url}/ready`)).status === 200 ? true : undefined), 15_000, `${url} ready again`)),
      );
      const readyAgainMs = Date.now() - resumedAt;
      log(`ready again on every replica ${readyAgainMs} ms after the black-out`);
      await sleep(3_000);
      await workload.stop();
      const everyMessageFinished = () =>
        eventually(
          async () => {
            const { rows } = await admin.query<{ open: number }>("SELECT count(*)::int AS open FROM lattice_thread_message_queue WHERE status <> 'completed'");
            return rows[0].open === 0 ? true : undefined;
          },
          60_000,
          "every accepted message to finish",
        );
      // The backlog the faults left drains first: the wake-up below is timed on an idle thread.
      await everyMessageFinished();

      // 4. Only the LISTEN connections killed: a message queued on one replica for a thread another
      // runs must still run within seconds (the listener reconnects and catches up; the sweep backs it).
      const threadId = threadIds[0];
      const owner = await startLongRun(urls[0], threadId, "listen-long", 1_500);
      const other = replicas.find((replica) => replica.replicaId !== owner)!;
      const { rowCount: listeners } = await admin.query(gatewayBackends("AND query LIKE 'LISTEN%'"));
      log(`killed ${listeners} LISTEN connections; ${threadId} runs on ${owner}, queuing on ${other.replicaId}`);
      const queuedAt = Date.now();
      await expectOk(call(other.url, "POST", "/api/runs", { assistant_id: ASSISTANT, thread_id: threadId, message: "after the LISTEN kill", message_id: "listen-after", mode: "queue" }), 202);
      await eventually(
        async () => {
          const { rows } = await admin.query("SELECT 1 FROM lattice_thread_message_queue WHERE thread_id = $1 AND content::text LIKE '%after the LISTEN kill%' AND status = 'completed'", [threadId]);
          return rows.length === 1 ? true : undefined;
        },
        10_000,
        "the message queued after the LISTEN kill to run",
      );
      const wakeUpMs = Date.now() - queuedAt;

      // Every accepted message answered once.
      await everyMessageFinished();
      let unanswered = 0;
      let duplicates = 0;
      for (const id of threadIds) {
        const state = await expectOk<{ messages: Array<{ type: string; content: string }> }>(call(urls[0], "GET", `/api/threads/${id}/state`));
        const answers = state.messages.filter((message) => message.type === "ai").map((message) => message.content);
        for (const { text } of workload.accepted.filter((message) => message.threadId === id)) {
          const count = answers.filter((answer) => answer === `echo: ${text}`).length;
          if (count === 0) unanswered++;
          if (count > 1) duplicates++;
        }
      }
      const { rows: dbErrorRuns } = await admin.query<{ error: string }>("SELECT error FROM lattice_thread_message_queue WHERE run_status = 'error'");
      // A probe answers within the readiness check's timeout (800 ms); slow is well past it, not a loaded machine's pause.
      const slowProbes = probes.filter((probe) => probe.ms >= 1_500).length;
      console.log(
        `faults: accepted=${workload.accepted.length} unanswered=${unanswered} dup=${duplicates} runs_error=${dbErrorRuns.length} ` +
          `hung=${workload.hung} http=${JSON.stringify(workload.statuses)} ready_probes=${probes.length} ready_503=${probes.filter((p) => p.status === 503).length} ` +
          `ready_slow=${slowProbes} ready_again_ms=${readyAgainMs} listen_wakeup_ms=${wakeUpMs}`,
      );
      if (dbErrorRuns.length > 0) console.log(`faults: errors of failed runs: ${JSON.stringify([...new Set(dbErrorRuns.map((row) => row.error))])}`);

      expect({
        exited: replicas.filter((replica) => !replica.running).map((replica) => replica.replicaId),
        hung: workload.hung,
        readyDuringBlackout: probes.every((probe) => probe.status === 503),
        slowProbes,
        unanswered,
        duplicates,
        failedRuns: dbErrorRuns.length,
      }).toEqual({ exited: [], hung: 0, readyDuringBlackout: true, slowProbes: 0, unanswered: 0, duplicates: 0, failedRuns: 0 });
      expect(probes.length).toBeGreaterThan(0);
      expect(readyAgainMs).toBeLessThan(10_000);
      expect(wakeUpMs).toBeLessThan(5_000);
      expect(workload.accepted.length).toBeGreaterThan(0);
      for (const replica of replicas) expect(replica.logs).not.toContain("fatal error");
    } finally {
      await proxy.close();
    }
  }, 240_000);
});
