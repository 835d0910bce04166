import { execa } from "execa";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const cli = resolve(__dirname, "../dist/cli.js");

describe("lattice-gateway CLI", () => {
  it("refuses an invalid PORT with exit code 2 and a clear message", async () => {
    const result = await execa("node", [cli], { env: { PORT: "abc" }, reject: false, timeout: 10_000 });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("invalid configuration: PORT: must be a whole number");
  });

  it("serves /health, then exits 0 on SIGTERM", async () => {
    const child = execa("node", [cli], { env: { PORT: "0", LOG_LEVEL: "warn" }, reject: false, timeout: 20_000 });
    const url = await new Promise<string>((resolveUrl, rejectUrl) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        const match = /ready at (http:\/\/\S+)/.exec(chunk.toString());
        if (match) resolveUrl(match[1]);
      });
      child.once("exit", () => rejectUrl(new Error("gateway exited before it was ready")));
    });
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-axiom-replica")).toMatch(/:\d+$/);
    child.kill("SIGTERM");
    const result = await child;
    expect(result.exitCode).toBe(0);
  });
});
