import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Many tests here start CLI processes or create PostgreSQL databases: on a busy two-core CI machine
// those take longer than vitest's 5 s default without anything being wrong. A hang still fails.
// Three files at a time even on two cores (vitest would run one): the tests mostly wait on PostgreSQL,
// child processes and timers (the suite's processes use about half a core), and each file has its own
// databases and ports.
// One module graph per worker (isolate: false): loading the gateway's (LangGraph, Fastify, zod) anew
// for each file summed 165 s of imports, 17 s so (the suite: 348 s, 273 s). No file mocks a module or keeps state
// between files but in what it creates (its gateways, stores, databases, ports), which it closes.
export default defineConfig({
  test: {
    isolate: false,
    // After a failed test, every gateway process its file started: how it ended, what it printed last.
    setupFiles: ["./test/processReports.ts"],
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
