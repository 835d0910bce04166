import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { useCluster } from "../harness/cluster";

describe("scenario 1: concurrent startup on an empty database", () => {
  const cluster = useCluster();

  it("runs migrations and checkpoint setup once; all three replicas become ready with no error logged", async () => {
    const replicas = await cluster.start(3);

    const client = new Client({ connectionString: (await cluster.database()).url });
    await client.connect();
    try {
      const ledger = await client.query<{ version: number; n: string }>(
        "SELECT version, count(*) AS n FROM lattice_schema_migrations GROUP BY version",
      );
      expect(ledger.rows.length).toBeGreaterThan(0);
      expect(ledger.rows.every((row) => row.n === "1")).toBe(true);
      const checkpoint = await client.query<{ n: string; distinct_versions: string }>(
        "SELECT count(*) AS n, count(DISTINCT v) AS distinct_versions FROM checkpoint_migrations",
      );
      expect(checkpoint.rows[0].n).toBe(checkpoint.rows[0].distinct_versions);
      expect(Number(checkpoint.rows[0].n)).toBeGreaterThan(0);
    } finally {
      await client.end();
    }

    for (const replica of replicas) {
      const response = await fetch(`${replica.url}/ready`);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-axiom-replica")).toBe(replica.replicaId);
      const metrics = await fetch(`${replica.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("lattice_queue_pending_messages 0");
      const errors = replica.logLines().filter((line) => Number(line.level) >= 50);
      expect(errors).toEqual([]);
    }
  });
});
