import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { workspaceRoot } from "./workspace";

// The README's first command as written, `bash scripts/start.sh`, from the checkout's root: it installs
// what is missing, builds the gateway, and starts it on the in-memory stores. Its ready line names the
// address, and `/health` answers 200 with the serving replica in `x-axiom-replica`, as the README says.
// The one change: PORT=0 (a free port) for the README's 4001, which a developer's gateway may hold.
// Run with the release tests, one file at a time: its install and build touch the shared checkout.

const READY_LINE = /gateway ready at (http:\/\/[^\s"]+)/;

describe("the README's `bash scripts/start.sh`", () => {
  it("starts a gateway on the in-memory stores that answers /health", { timeout: 300_000 }, async () => {
    // Its own process group: `pnpm start` runs turbo, then the gateway, under shells that a signal to bash alone would orphan.
    // A reader's shell: whatever the test run has, but no DATABASE_URL (the suite sets one; the README's reader has none).
    const { DATABASE_URL: _databaseUrl, ...readerEnv } = process.env;
    const env = { ...readerEnv, PORT: "0", LOG_LEVEL: "info" };
    const child = execa("bash", ["scripts/start.sh"], { cwd: workspaceRoot, env, extendEnv: false, detached: true, reject: false, all: true });
    let output = "";
    try {
      const url = await new Promise<string>((resolveUrl, rejectUrl) => {
        child.all?.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const ready = READY_LINE.exec(output);
          if (ready) resolveUrl(ready[1]);
        });
        void child.then(() => rejectUrl(new Error(`scripts/start.sh exited before the gateway was ready:\n${output}`)));
      });
      expect(output).toMatch(/"storeMode":"memory"/);
      // Progress before the gateway's first line: the build step, then turbo's line for each package it builds (or replays).
      expect(output).toContain("==> building the gateway");
      expect(output).toMatch(/@axiom-lattice\/gateway:build: /);
      const health = await fetch(`${url}/health`);
      expect(health.status, output).toBe(200);
      expect(health.headers.get("x-axiom-replica")).toBeTruthy();
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await child;
    }
  });
});
