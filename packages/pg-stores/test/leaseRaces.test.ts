// Cross-process proofs of the lease guarantees: separate Node processes race on one PostgreSQL
// database through the built PostgreSQLLeaseStore and withLease.
import { createTestDatabase, eventually, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../src";
import { Child, killRunningChildren, race } from "./support/children";
import { MICROS, TENURES_TABLE, type Tenure, tenureViolations, tenuresOf } from "./support/tenures";

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase("lattice_lease_races");
  pool = new Pool({ connectionString: database.url, max: 2 });
  await runMigrations(pool);
  await pool.query(`
    ${TENURES_TABLE}
    CREATE TABLE counters (name text PRIMARY KEY, value integer NOT NULL);
  `);
});

afterEach(killRunningChildren);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});



describe("tenure check", () => {
  it("detects overlapping tenures and tokens that do not increase", () => {
    const at = (holder: string, token: number, start: number, end: number): Tenure => ({
      holder,
      token: BigInt(token),
      start: BigInt(start),
      end: BigInt(end),
    });
    expect(tenureViolations([at("a", 1, 0, 10), at("b", 2, 10, 20), at("c", 3, 25, 30)])).toEqual([]);
    expect(tenureViolations([at("a", 1, 0, 10), at("b", 2, 9, 20)])).toHaveLength(1);
    // c overlaps a long tenure a, though not b, the tenure just before it.
    expect(tenureViolations([at("a", 1, 0, 100), at("b", 2, 10, 20), at("c", 3, 30, 40)]).length).toBeGreaterThanOrEqual(2);
    expect(tenureViolations([at("a", 2, 0, 10), at("b", 2, 20, 30)])).toEqual([expect.stringContaining("token")]);
    expect(tenureViolations([at("a", 5, 0, 10), at("b", 3, 20, 30)])).toEqual([expect.stringContaining("token")]);
  });
});

// Bounded waits for whole races of several processes on a shared, possibly busy machine.
describe("PostgreSQLLeaseStore across processes", { timeout: 60_000 }, () => {
  it("4 processes × 200 attempts on one key: tenures never overlap, tokens strictly increase", async () => {
    const processes = 4;
    const attempts = 200;
    const racers = await race(processes, "leaseTenures.mjs", (n) => ({
      url: database.url,
      run: "guarded",
      key: "race:tenure",
      attempts,
      label: `p${n}`,
      guarded: true,
    }));
    const results = await Promise.all(racers.map((racer) => racer.result<{ attempts: number; tenures: number }>()));
    const tenures = await tenuresOf(pool, "guarded");

    const perProcess = Object.fromEntries(results.map((result, n) => [`p${n}`, result.tenures]));
    const won = tenures.length;
    console.info(`lease race volumes: attempts=${processes * attempts} tenures=${won} refused=${processes * attempts - won} per process=${JSON.stringify(perProcess)}`);

    expect(won).toBe(results.reduce((sum, result) => sum + result.tenures, 0));
    expect(won).toBeLessThan(processes * attempts); // the processes really contended
    expect(Object.values(perProcess).every((count) => count > 0)).toBe(true);
    expect(tenureViolations(tenures)).toEqual([]);
  });

  it("control: the same racers without the lease produce overlaps the check catches", async () => {
    const racers = await race(4, "leaseTenures.mjs", (n) => ({
      url: database.url,
      run: "unguarded",
      key: "race:unguarded",
      attempts: 25,
      label: `p${n}`,
      guarded: false,
    }));
    await Promise.all(racers.map((racer) => racer.result()));
    expect(tenureViolations(await tenuresOf(pool, "unguarded")).some((v) => v.includes("before"))).toBe(true);
  });

  it("withLease makes a non-atomic read-increment-write exact: 4 processes × 50 increments", async () => {
    await pool.query("INSERT INTO counters (name, value) VALUES ('guarded', 0)");
    const racers = await race(4, "leaseCounter.mjs", (n) => ({ url: database.url, counter: "guarded", increments: 50, label: `p${n}`, guarded: true }));
    await Promise.all(racers.map((racer) => racer.result()));
    const { rows } = await pool.query<{ value: number }>("SELECT value FROM counters WHERE name = 'guarded'");
    expect(rows[0].value).toBe(4 * 50);
    // Every tenure was released: the key's row remains, expired, and nobody holds it.
    expect((await pool.query("SELECT count(*)::int AS n FROM lattice_leases WHERE key = 'counter:guarded' AND expires_at > now()")).rows[0].n).toBe(0);
  });

  it("control: the same increments without withLease lose updates", async () => {
    await pool.query("INSERT INTO counters (name, value) VALUES ('unguarded', 0)");
    const racers = await race(4, "leaseCounter.mjs", (n) => ({ url: database.url, counter: "unguarded", increments: 10, label: `p${n}`, guarded: false }));
    await Promise.all(racers.map((racer) => racer.result()));
    const { rows } = await pool.query<{ value: number }>("SELECT value FROM counters WHERE name = 'unguarded'");
    expect(rows[0].value).toBeLessThan(4 * 10);
  });

  it("a holder killed with SIGKILL keeps its lease until expires_at by the database clock, then loses it", async () => {
    const key = "race:killed-holder";
    const holder = new Child("leaseHolder.mjs", { url: database.url, key, ttlMs: 2_000, applicationName: "doomed-holder" });
    const held = await holder.next<{ token: string }>("HELD");
    const contender = new Child("leaseContender.mjs", { url: database.url, key, intervalMs: 20, deadlineMs: 15_000, applicationName: "contender" });
    await contender.next("READY");
    contender.go();

    const killedAt = BigInt((await pool.query<{ us: string }>(`SELECT ${MICROS("clock_timestamp()")} AS us`)).rows[0].us);
    holder.kill("SIGKILL");
    expect((await holder.outcome()).signal).toBe("SIGKILL");
    // Once the killed process's connections are gone no renewal can land: expires_at is final.
    await eventually("the killed holder's connections to close", async () => {
      const { rows } = await pool.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'doomed-holder'");
      return rows.length === 0;
    });
    const lease = (
      await pool.query<{ expires: string; token: string }>(`SELECT ${MICROS("expires_at")} AS expires, token::text AS token FROM lattice_leases WHERE key = $1`, [key])
    ).rows[0];
    expect(lease.token).toBe(held.token);
    const expiresAt = BigInt(lease.expires);

    const { attempts } = await contender.result<{ attempts: { before: string; after: string; ok: boolean }[] }>();
    const tried = attempts.map((a) => ({ before: BigInt(a.before), after: BigInt(a.after), ok: a.ok }));
    const refused = tried.filter((a) => !a.ok);
    const won = tried.filter((a) => a.ok);
    const taken = (
      await pool.query<{ acquired: string; token: string }>(`SELECT ${MICROS("acquired_at")} AS acquired, token::text AS token FROM lattice_leases WHERE key = $1`, [key])
    ).rows[0];
    console.info(
      `killed holder: expires_at - kill = ${(expiresAt - killedAt) / 1000n} ms; contender refused ${refused.length}×, ` +
        `took over ${(BigInt(taken.acquired) - expiresAt) / 1000n} ms after expires_at`,
    );

    // Refused after the kill, wholly before expiry: the dead holder still owned the key.
    expect(refused.filter((a) => a.before >= killedAt && a.after < expiresAt).length).toBeGreaterThan(0);
    // Every refusal began before expiry: once expired, the key was taken at the next attempt.
    expect(refused.every((a) => a.before < expiresAt)).toBe(true);
    // Then taken over, never before expires_at, with a larger token.
    expect(won).toHaveLength(1);
    expect(BigInt(taken.acquired)).toBeGreaterThanOrEqual(expiresAt);
    expect(BigInt(taken.token)).toBeGreaterThan(BigInt(held.token));
  });
});
