import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Many tests here start CLI processes or create PostgreSQL databases: on a busy two-core CI machine
// those take longer than vitest's 5 s default without anything being wrong. A hang still fails.
// Two files at a time even on two cores (vitest would run one): the tests mostly wait on PostgreSQL,
// child processes and timers, and each file has its own databases and ports.
export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
