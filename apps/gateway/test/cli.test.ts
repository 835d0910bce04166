import { execa } from "execa";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";

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

  it("issues a token (token:issue) that a gateway with the same secret accepts, for that tenant only", async () => {
    const secret = "a-cli-secret-of-at-least-32-characters!!";
    const issued = await execa("node", [cli, "token:issue", "--tenant", "acme", "--sub", "ops", "--scope", "read"], {
      env: { AUTH_TOKEN_SECRET: secret },
      timeout: 10_000,
    });
    const app = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: secret }));
    try {
      const headers = { authorization: `Bearer ${issued.stdout.trim()}` };
      expect((await app.inject({ method: "GET", url: "/api/threads", headers })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/api/threads", headers: { ...headers, "x-tenant-id": "other" } })).statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it.each([
    [["token:issue", "--sub", "ops"], { AUTH_TOKEN_SECRET: "a-cli-secret-of-at-least-32-characters!!" }, "usage: lattice-gateway token:issue"],
    [["token:issue", "--tenant", "acme", "--sub", "ops"], {}, "AUTH_TOKEN_SECRET"],
    [["serve-everything"], {}, 'unknown command "serve-everything"'],
  ])("refuses %j with exit code 2", async (args, env, message) => {
    const result = await execa("node", [cli, ...args], { env, reject: false, timeout: 10_000 });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
