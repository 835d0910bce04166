import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { useCluster } from "../harness/cluster";

describe("scenario 1: concurrent startup on an empty database", () => {
  const cluster = useCluster("empty");

  it("one replica applies the migrations (each logs what it applied), checkpoint setup succeeds, all three become ready with no error logged", async () => {
    const replicas = await cluster.start(3);

    // Each replica logs which migrations it applied: exactly one applied them all, the others none.
    const applied = replicas.map((replica) => {
      const ready = replica.logLines().filter((line) => line.msg === "database schema ready");
      expect(ready).toHaveLength(1);
      return ready[0].appliedMigrations as number[];
    });
    const client = new Client({ connectionString: (await cluster.database()).url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>("SELECT version FROM lattice_schema_migrations ORDER BY version");
      const all = rows.map((row) => row.version);
      expect(all.length).toBeGreaterThan(0);
      expect(applied.filter((versions) => versions.length > 0)).toEqual([all]);
      // LangGraph's checkpoint setup ran under the same lock: its tables exist and answer.
      await client.query("SELECT count(*) FROM checkpoints");
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
