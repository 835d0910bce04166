import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Every test here creates PostgreSQL databases, and the race tests start several pools or processes:
// on a busy two-core CI machine those take longer than vitest's 5 s default without anything being
// wrong. A hang still fails.
// Two files at a time even on two cores (vitest would run one): the tests mostly wait on PostgreSQL,
// child processes and timers, and each file has its own databases and ports.
// One module graph per worker (isolate: false): loading it anew for each file summed 58 s of
// imports, 8 s so (the suite: 143 s, 114 s). No file mocks a module or keeps state between files but in what it
// creates (its stores, pools, databases, processes), which it closes.
export default defineConfig({
  test: {
    isolate: false,
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
