// How far a gateway has got through queued runs, read from the database: polling the replicas would
// add load to what is measured.
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "pg";

/**
 * Resolves once `runs` queued messages have finished (completed rows of the queue table). Returns how
 * long it took from the call; throws when a run did not succeed or `timeoutMs` passed.
 */
export async function waitForFinishedRuns(databaseUrl: string, runs: number, timeoutMs: number, pollMs = 250): Promise<number> {
  const startedAt = Date.now();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ run_status: string; count: number }>(
        "SELECT run_status, count(*)::int AS count FROM lattice_thread_message_queue WHERE status = 'completed' GROUP BY run_status",
      );
      const finished = rows.reduce((sum, row) => sum + row.count, 0);
      if (finished >= runs) {
        const unsuccessful = rows.filter((row) => row.run_status !== "success");
        if (unsuccessful.length) throw new Error(`runs finished as ${JSON.stringify(Object.fromEntries(unsuccessful.map((row) => [row.run_status, row.count])))}`);
        return Date.now() - startedAt;
      }
      if (Date.now() - startedAt > timeoutMs) throw new Error(`${finished} of ${runs} runs finished after ${timeoutMs} ms`);
      await sleep(pollMs);
    }
  } finally {
    await client.end();
  }
}
