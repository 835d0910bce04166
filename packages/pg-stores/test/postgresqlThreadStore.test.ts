import { threadStoreContract } from "@axiom-lattice/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PostgreSQLThreadStore } from "../src";
import { LIST_THREADS } from "../src/threads/threadSql";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

let url = "";
let peers: PostgreSQLThreadStore[] = [];

threadStoreContract(
  "PostgreSQL",
  storeOnTestDatabase((databaseUrl) => {
    url = databaseUrl;
    return new PostgreSQLThreadStore({ poolConfig: databaseUrl });
  }, "lattice_threads"),
  // Each on a pool of its own: racing claims come from separate connections, as from replicas.
  async (count) => {
    peers = Array.from({ length: count }, () => new PostgreSQLThreadStore({ poolConfig: { connectionString: url, max: 2 } }));
    await Promise.all(peers.map((peer) => peer.initialize()));
    return peers;
  },
);

// After the contract's own afterAll (hooks run last registered first): the peers close before the database goes.
afterAll(() => Promise.all(peers.map((peer) => peer.dispose())));

describe("PostgreSQLThreadStore", () => {
  const open = storeOnTestDatabase((databaseUrl) => new PostgreSQLThreadStore({ poolConfig: databaseUrl }), "lattice_thread_pages");

  it("starts a page of threads at its cursor in the index (migration 212), of all the tenant's threads or one assistant's", async () => {
    const store = await open();
    const pool = store["pool"];
    await pool.query(
      `INSERT INTO lattice_threads (tenant_id, id, assistant_id, created_at)
       SELECT 'tenant-' || (n % 10), 'thread-' || n, 'assistant-' || (n % 7), now() - n * interval '1 second'
         FROM generate_series(1, 20000) AS n`,
    );
    await pool.query("ANALYZE lattice_threads");
    const explain = async (assistantId: string | null) =>
      (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${LIST_THREADS}`, ["tenant-3", assistantId, Date.now() * 1_000 - 60_000_000, "thread-60", 11])).rows
        .map((row) => row["QUERY PLAN"])
        .join("\n");
    expect(await explain(null)).toMatch(/Index Scan using lattice_threads_pages on[^\n]*\n\s*Index Cond: \(\(tenant_id = 'tenant-3'::text\) AND \(ROW\(created_at, \(id\)::text\) < /);
    expect(await explain("assistant-2")).toMatch(/Index Scan using lattice_threads_pages_by_assistant on[^\n]*\n\s*Index Cond: \(\(tenant_id = 'tenant-3'::text\) AND \(assistant_id = 'assistant-2'::text\) AND \(ROW\(created_at, \(id\)::text\) < /);
  });
});
