import { defineConfig } from "vitest/config";

// In-memory unit tests: one process reuses its imported modules across files (on a two-core CI
// machine vitest runs one worker, and re-importing LangChain and the sources per file was most of
// the wall time). Each file still restores what it changes (timers, env, spies).
export default defineConfig({
  test: {
    isolate: false,
  },
});
