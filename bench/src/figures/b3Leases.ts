// B3 (performance.md): lease acquire + release pairs/s on distinct keys, 4 concurrent clients, through
// PostgreSQLLeaseStore, against a bare single-row INSERT … ON CONFLICT + DELETE pair on an equivalent
// bare table, measured in the same run on the same pool.
import { PostgreSQLLeaseStore } from "@axiom-lattice/pg-stores";
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { performance } from "node:perf_hooks";
import { Pool } from "pg";
import { type Figure, median } from "../figure";

const CLIENTS = 4;
const REPETITIONS = 5;
// Each repetition gives each side 2 s, in slices taken in turns, so both sides meet the same load
// from whatever else the (shared, noisy) machine is doing.
const SLICES = 8;
const SLICE_MS = 250;
const WARM_UP_MS = 300;
const TTL_MS = 30_000;
const TARGET = 0.8;

// The lease table's columns and primary key, without its expires_at index, conflict rules or fencing sequence.
const BARE_TABLE = `
  CREATE TABLE bench_bare_leases (
    key         text        PRIMARY KEY,
    holder      text        NOT NULL,
    token       bigint      NOT NULL,
    acquired_at timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
  )`;
// Named like the store's own statements, so both sides skip re-planning and the ratio measures the
// store's extra work, not statement caching.
const BARE_ACQUIRE = {
  name: "bench_bare_acquire",
  text: `
  INSERT INTO bench_bare_leases (key, holder, token, acquired_at, renewed_at, expires_at)
  VALUES ($1, $2, 0, now(), now(), now() + $3 * interval '1 millisecond')
  ON CONFLICT (key) DO NOTHING`,
};
const BARE_RELEASE = { name: "bench_bare_release", text: "DELETE FROM bench_bare_leases WHERE key = $1 AND holder = $2" };

/** One acquire + release of `key`. */
type Pair = (key: string, holder: string) => Promise<void>;

interface Tally {
  pairs: number;
  ms: number;
}

/** Runs `CLIENTS` concurrent loops of `pair` for about `windowMs`, each loop on keys of its own. */
async function drive(pair: Pair, keyPrefix: string, windowMs: number, tally: Tally): Promise<void> {
  const startedAt = performance.now();
  const deadline = startedAt + windowMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        await pair(`${keyPrefix}:${client}:${i}`, `bench-client-${client}`);
        tally.pairs += 1;
      }
    }),
  );
  tally.ms += performance.now() - startedAt;
}

const perSecond = ({ pairs, ms }: Tally) => (pairs * 1_000) / ms;

export const b3Leases: Figure = {
  id: "B3",
  title: "lease acquire+release pairs/s, 4 clients, distinct keys",
  async run() {
    const database = await createTestDatabase("lattice_bench_b3");
    const pool = new Pool({ connectionString: database.url, max: CLIENTS });
    try {
      const store = new PostgreSQLLeaseStore({ pool });
      await store.initialize();
      await pool.query(BARE_TABLE);

      const throughStore: Pair = async (key, holder) => {
        if (!(await store.acquire(key, holder, TTL_MS))) throw new Error(`B3: distinct key ${key} was refused`);
        await store.release(key, holder);
      };
      const bare: Pair = async (key, holder) => {
        await pool.query({ ...BARE_ACQUIRE, values: [key, holder, TTL_MS] });
        await pool.query({ ...BARE_RELEASE, values: [key, holder] });
      };

      await drive(throughStore, "warm-store", WARM_UP_MS, { pairs: 0, ms: 0 });
      await drive(bare, "warm-bare", WARM_UP_MS, { pairs: 0, ms: 0 });
      const storeRuns: number[] = [];
      const bareRuns: number[] = [];
      for (let rep = 0; rep < REPETITIONS; rep += 1) {
        const storeTally = { pairs: 0, ms: 0 };
        const bareTally = { pairs: 0, ms: 0 };
        for (let slice = 0; slice < SLICES; slice += 1) {
          // Alternate which side goes first, so neither always follows the other.
          const storeFirst = slice % 2 === 0;
          const prefix = `${rep}-${slice}`;
          if (storeFirst) await drive(throughStore, `store-${prefix}`, SLICE_MS, storeTally);
          await drive(bare, `bare-${prefix}`, SLICE_MS, bareTally);
          if (!storeFirst) await drive(throughStore, `store-${prefix}`, SLICE_MS, storeTally);
        }
        storeRuns.push(perSecond(storeTally));
        bareRuns.push(perSecond(bareTally));
      }

      const value = median(storeRuns);
      const baseline = median(bareRuns);
      const ratio = value / baseline;
      return {
        unit: "pairs/s",
        value,
        baseline,
        baselineName: "bare INSERT … ON CONFLICT + DELETE, same run",
        ratio,
        better: "higher",
        target: TARGET,
        ok: ratio >= TARGET,
        raw: { clients: CLIENTS, poolSize: CLIENTS, repetitions: REPETITIONS, msPerSidePerRepetition: SLICES * SLICE_MS, storeRuns, bareRuns },
      };
    } finally {
      await pool.end();
      await database.drop();
    }
  },
};
