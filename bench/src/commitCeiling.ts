// The primary's ceiling for writing commits: a bare loop of single-row INSERTs, each its own
// transaction (so each waits for its WAL flush, `synchronous_commit` on), from `clients` connections
// at once. Concurrent commits share a flush (group commit), so the ceiling rises with clients until
// the flush or the CPU is saturated. B6 uses it to model how many replicas one primary carries.
import { performance } from "node:perf_hooks";
import { Client } from "pg";

export interface CommitCeiling {
  clients: number;
  commitsPerSecond: number;
}

/** Commits/s of `clients` connections each committing one-row INSERTs for `seconds`. */
export async function measureCommitCeiling(databaseUrl: string, clients: number, seconds: number): Promise<CommitCeiling> {
  const connections = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  try {
    await connections[0].query("CREATE TABLE IF NOT EXISTS bench_commit_ceiling (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())");
    const deadline = performance.now() + seconds * 1_000;
    const startedAt = performance.now();
    const counts = await Promise.all(
      connections.map(async (client) => {
        let commits = 0;
        while (performance.now() < deadline) {
          await client.query({ name: "bench_commit", text: "INSERT INTO bench_commit_ceiling DEFAULT VALUES" });
          commits += 1;
        }
        return commits;
      }),
    );
    const elapsed = (performance.now() - startedAt) / 1_000;
    return { clients, commitsPerSecond: counts.reduce((a, b) => a + b, 0) / elapsed };
  } finally {
    await Promise.all(connections.map((client) => client.end()));
  }
}
