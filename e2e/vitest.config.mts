import { defineConfig } from "vitest/config";

// One module graph for the run (isolate: false): loading it anew for each file took 48 s, 5 s so. No
// file mocks a module or keeps state between files but in what it starts, which it stops.
export default defineConfig({
  test: {
    include: ["scenarios/**/*.test.ts", "release/**/*.test.ts"],
    // Scenarios start real processes; running them one at a time keeps 2-core machines honest.
    fileParallelism: false,
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
