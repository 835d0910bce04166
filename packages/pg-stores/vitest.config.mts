import { defineConfig } from "vitest/config";

// Every test here creates PostgreSQL databases, and the race tests start several pools or processes:
// on a busy two-core CI machine those take longer than vitest's 5 s default without anything being
// wrong. A hang still fails.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
