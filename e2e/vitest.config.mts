import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["scenarios/**/*.test.ts", "release/**/*.test.ts"],
    // Scenarios start real processes; running them one at a time keeps 2-core machines honest.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
