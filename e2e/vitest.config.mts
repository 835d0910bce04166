import { configDefaults, defineConfig } from "vitest/config";

// One module graph per worker (isolate: false): loading it anew for each file took 48 s, 5 s so. No
// file mocks a module or keeps state between files but in what it starts, which it stops.
//
// Two files at a time: each file has its own databases (createTestDatabase), replicas on free ports
// (PORT=0) and nginx/pgbouncer/verdaccio on free ports, and the scenarios mostly wait on leases,
// timers and child processes, so two of them fit on two cores (the serial run used about a third of
// them). The one file that touches the shared checkout, the README's `scripts/start.sh` (its install
// and build may rewrite dist/, which every replica is started from), runs alone after the others.
// E2E_MAX_WORKERS=1 runs every file one at a time, as before.
const maxWorkers = Number(process.env.E2E_MAX_WORKERS ?? 2);
const CHECKOUT = ["release/startScript.test.ts"];

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
          name: "e2e",
          include: ["scenarios/**/*.test.ts", "release/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...CHECKOUT],
          maxWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "checkout",
          include: CHECKOUT,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
