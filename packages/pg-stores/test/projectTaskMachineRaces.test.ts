// Cross-process proof of ProjectTaskExecutionMutex: separate Node processes ("replicas"), each with
// several concurrent callers, run exclusive sections of one project task machine on one PostgreSQL.
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../src";
import { killRunningChildren, race } from "./support/children";
import { TENURES_TABLE, tenureViolations, tenuresOf } from "./support/tenures";

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase("lattice_machine_races");
  pool = new Pool({ connectionString: database.url, max: 2 });
  await runMigrations(pool);
  await pool.query(`
    ${TENURES_TABLE}
    CREATE TABLE machine_counters (run text PRIMARY KEY, value integer NOT NULL);
  `);
});

afterEach(killRunningChildren);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const scope = { tenantId: "tenant:1", assistantId: "bot", projectId: "launch" };

/** Starts `processes` replicas of `workers` callers each, all running sections of `scope` until `sections` per replica are done. */
async function raceSections(run: string, guarded: boolean, processes: number, sectionsPerProcess: number) {
  await pool.query("INSERT INTO machine_counters (run, value) VALUES ($1, 0)", [run]);
  const replicas = await race(processes, "projectMachineSections.mjs", (n) => ({
    url: database.url,
    run,
    scope,
    sections: sectionsPerProcess,
    workers: 3,
    label: `replica-${n}`,
    guarded,
  }));
  await Promise.all(replicas.map((replica) => replica.result()));
  const sections = await tenuresOf(pool, run);
  const counter = (await pool.query<{ value: number }>("SELECT value FROM machine_counters WHERE run = $1", [run])).rows[0].value;
  return { sections, counter };
}

// Bounded waits for whole races of several processes on a shared, possibly busy machine.
describe("ProjectTaskExecutionMutex across processes", { timeout: 120_000 }, () => {
  it("4 replicas × 3 callers × 60 sections on one machine: sections never overlap, tokens strictly increase", async () => {
    const processes = 4;
    const perProcess = 60;
    const { sections, counter } = await raceSections("guarded", true, processes, perProcess);

    const handovers = [...sections]
      .sort((a, b) => (a.start < b.start ? -1 : 1))
      .filter((section, n, sorted) => n > 0 && sorted[n - 1].process !== section.process).length;
    console.info(`project task machine race: sections=${sections.length} handovers between replicas=${handovers}`);

    expect(sections).toHaveLength(processes * perProcess);
    expect(new Set(sections.map((section) => section.process)).size).toBe(processes);
    expect(tenureViolations(sections)).toEqual([]);
    expect(counter).toBe(processes * perProcess);
    // Every section released its lease: nobody holds the machine afterwards.
    const live = await pool.query("SELECT 1 FROM lattice_leases WHERE key LIKE 'project-task-machine:%' AND expires_at > now()");
    expect(live.rowCount).toBe(0);
  });

  it("control: the same replicas without the lease (process-local lock only) overlap, and the check catches it", async () => {
    const { sections, counter } = await raceSections("unguarded", false, 4, 25);
    expect(tenureViolations(sections).some((violation) => violation.includes("before"))).toBe(true);
    expect(counter).toBeLessThan(4 * 25);
  });
});
