import { configDefaults, defineConfig } from "vitest/config";

// One module graph per worker (isolate: false): loading it anew for each file took 48 s, 5 s so. No
// file mocks a module or keeps state between files but in what it starts, which it stops.
//
// Three projects, run in this order by `vitest run` (scripts/test.sh runs `release` beside the
// gateway's unit tests, then the others):
// - release: the files that create no test database: the release pipeline (packing, publishing to a
//   local registry, turbo's cache, changesets, each in a temporary copy or folder) and scenario 24 in
//   memory;
// - scenarios: every other scenario. Each file has its own databases (createTestDatabase), replicas
//   on free ports (PORT=0) and nginx/pgbouncer on free ports, and mostly waits on leases, timers and
//   child processes (its processes use about half a core), so three files run at a time, their
//   replicas' pools kept small enough for PostgreSQL's 100 connections;
// - alone: one file at a time, last. The README's `scripts/start.sh`: its install and build rewrite
//   dist/ in the checkout, which every replica is started from.
// E2E_MAX_WORKERS=1 runs the files one at a time.
const maxWorkers = Number(process.env.E2E_MAX_WORKERS ?? 3);
const ALONE = ["release/startScript.test.ts"];
const RELEASE = ["release/**/*.test.ts", "scenarios/24-langgraph-sdk.test.ts"];

const shared = {
  isolate: false,
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "release",
          include: RELEASE,
          exclude: [...configDefaults.exclude, ...ALONE],
          maxWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "scenarios",
          include: ["scenarios/**/*.test.ts"],
          // Replicas close idle pooled connections after 5 s rather than 30 s, and keep at most 5 (the
          // default is 10), so that three files' replicas, with their restarts, stay within PostgreSQL's
          // 100 connections.
          env: { E2E_DATABASE_IDLE_TIMEOUT_MS: "5000", E2E_DATABASE_POOL_MAX: "5" },
          exclude: [...configDefaults.exclude, ...RELEASE, ...ALONE],
          maxWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: "alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
