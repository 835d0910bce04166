import { execa } from "execa";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { startCli } from "./cliProcess";

const cli = resolve(__dirname, "../dist/cli.js");
const SECRET = "a-cli-secret-of-at-least-32-characters!!";
// A refusal takes well under a second, but on a loaded CI machine node's start and the CLI's imports
// have taken over 10 s; the bound is a hang's, within the test's own 30 s.
const CLI_TIMEOUT_MS = 25_000;

describe("lattice-gateway CLI", () => {
  it("refuses an invalid PORT with exit code 2 and a clear message", async () => {
    const result = await execa("node", [cli], { env: { PORT: "abc" }, reject: false, timeout: CLI_TIMEOUT_MS });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("invalid configuration: PORT: must be a whole number");
  });

  it("refuses to start under NODE_ENV=production without LATTICE_ENCRYPTION_KEY (exit code 2), and warns without it otherwise", async () => {
    const refused = await execa("node", [cli], { env: { NODE_ENV: "production", PORT: "0" }, extendEnv: false, reject: false, timeout: CLI_TIMEOUT_MS });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("invalid configuration: LATTICE_ENCRYPTION_KEY: must be set when NODE_ENV=production");
    const development = await startCli({ PORT: "0", LOG_LEVEL: "warn" });
    expect(await development.stop()).toBe(0);
    expect(development.stdout()).toMatch(/"level":40,[^\n]*LATTICE_ENCRYPTION_KEY is not set/);
    const keyed = await startCli({ PORT: "0", LOG_LEVEL: "warn", NODE_ENV: "production", LATTICE_ENCRYPTION_KEY: `v1:${Buffer.alloc(32, 3).toString("base64")}` });
    expect(await keyed.stop()).toBe(0);
    expect(keyed.stdout()).not.toContain("LATTICE_ENCRYPTION_KEY");
  });

  it("serves /health, then exits 0 on SIGTERM", async () => {
    const gateway = await startCli({ PORT: "0", LOG_LEVEL: "warn" });
    const response = await fetch(`${gateway.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-axiom-replica")).toMatch(/:\d+$/);
    expect(await gateway.stop()).toBe(0);
  });

  it("exits 0 on SIGTERM though nobody reads its stdout, dropping the lines the full pipe would not take", { timeout: 30_000 }, async () => {
    // No SIGKILL after the SIGTERM (execa's default after 5 s): the gateway must end on its own.
    const child = execa("node", [cli], { env: { PORT: "0", LOG_LEVEL: "info" }, extendEnv: false, reject: false, buffer: false, forceKillAfterDelay: false });
    try {
      let printed = "";
      const url = await new Promise<string>((resolveUrl, rejectUrl) => {
        child.stdout!.on("data", (chunk: Buffer) => {
          printed += chunk.toString();
          const ready = /ready at (http:\/\/[^\s"]+)/.exec(printed);
          if (ready) resolveUrl(ready[1]);
        });
        child.once("exit", () => rejectUrl(new Error(`exited before it was ready:\n${printed}`)));
      });
      // A log shipper that stopped reading: the pipe fills (64 KiB here), then the gateway buffers.
      child.stdout!.pause();
      const longPath = `/health?${"x".repeat(4_000)}`;
      for (let n = 0; n < 1_000; n += 1) expect((await fetch(`${url}${longPath}`)).status).toBe(200);

      const stoppedAt = Date.now();
      child.kill("SIGTERM");
      const { exitCode } = await child;
      // The flush waits 2 s for the pipe; before, pino's exit handler retried the write forever.
      expect(Date.now() - stoppedAt).toBeLessThan(15_000);
      expect(exitCode).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("issues a token (token:issue) that a gateway with the same secret accepts, for that tenant only", async () => {
    const issued = await execa("node", [cli, "token:issue", "--tenant", "acme", "--sub", "ops", "--scope", "read"], {
      env: { AUTH_TOKEN_SECRET: SECRET },
      timeout: CLI_TIMEOUT_MS,
    });
    const app = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET }));
    try {
      const headers = { authorization: `Bearer ${issued.stdout.trim()}` };
      expect((await app.inject({ method: "GET", url: "/api/threads", headers })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/api/threads", headers: { ...headers, "x-tenant-id": "other" } })).statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it.each([
    [["token:issue", "--tenant", "acme", "--sub", "ops"], {}, "AUTH_TOKEN_SECRET"],
    [["serve-everything"], {}, 'unknown command "serve-everything"'],
    [["constructor"], {}, 'unknown command "constructor"'],
    [["--port", "4001"], {}, "Unknown option '--port'"],
    [["serve", "extra"], {}, "Unexpected argument 'extra'"],
    [["--version", "extra"], {}, "--version takes no arguments"],
    [["token:issue", "--tenant", "acme", "--sub", "ops", "--tenat", "x"], {}, "Unknown option '--tenat'"],
    [["token:issue", "--sub", "ops"], {}, "token:issue needs --tenant: lattice-gateway token:issue"],
    [["token:issue", "--tenant", "acme", "--sub", "ops", "--scope", "root"], {}, '--scope "root" is not a scope: one of read, write, admin'],
    [["token:issue", "--tenant", "acme", "--sub", "ops", "--expires-in", "1"], { AUTH_TOKEN_SECRET: SECRET }, '--expires-in "1" is not a lifetime'],
    // DATABASE_URL emptied: the test run may have one in its environment.
    [[], { AXIOM_ROLE: "worker", DATABASE_URL: "" }, "invalid configuration: AXIOM_ROLE: worker replicas share runs with their peers through PostgreSQL"],
  ])("refuses %j with exit code 2, in one line", async (args, env, message) => {
    const result = await execa("node", [cli, ...args], { env, reject: false, timeout: CLI_TIMEOUT_MS });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain("\n");
  });

  it("says in one line, exit code 1, that the port is taken, and what to do, and prints nothing after it", async () => {
    const taken = await startCli({ PORT: "0", LOG_LEVEL: "warn" });
    try {
      const port = new URL(taken.url).port;
      // Both streams on one pipe, in the order they were written, through a node parent sharing it as
      // `pnpm exec` does: its pipe is non-blocking, so log lines the pipe could not take at once used
      // to be written at exit, after the stderr line.
      const parent = `require("node:child_process").spawn(process.execPath, [${JSON.stringify(cli)}], { stdio: "inherit" }).on("exit", (code) => process.exit(code))`;
      // Three starts on the taken port at once: their waits overlap. Each bound leaves a loaded machine
      // room (one took over 20 s in CI) within the test's 90 s.
      const [result, merged, verbose] = await Promise.all([
        execa("node", [cli], { env: { PORT: port, LOG_LEVEL: "warn" }, reject: false, timeout: 60_000 }),
        execa("bash", ["-c", 'set -o pipefail; node -e "$PARENT" 2>&1 | cat'], { env: { PARENT: parent, PORT: port, LOG_LEVEL: "info" }, reject: false, timeout: 60_000 }),
        execa("node", [cli], { env: { PORT: port, LOG_LEVEL: "debug" }, reject: false, timeout: 60_000 }),
      ]);
      const message = `port ${port} on 127.0.0.1 is already in use by another process: stop it, or set PORT to a free port (PORT=0 picks one)`;
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(`lattice-gateway: failed to start: ${message}`);
      // The log's last line says it too (level 60, for whoever reads the log), and nothing follows the stderr line.
      const lines = merged.stdout.trim().split("\n");
      expect(merged.exitCode, merged.stdout).toBe(1);
      expect(lines.at(-1), merged.stdout).toBe(`lattice-gateway: failed to start: ${message}`);
      expect(JSON.parse(lines.at(-2)!), merged.stdout).toMatchObject({ level: 60, phase: "startup", msg: `failed to start: ${message}` });
      // The stack is there for whoever asks for it.
      expect(verbose.stderr).toContain("EADDRINUSE");
    } finally {
      await taken.stop();
    }
  }, 90_000);

  it.each(["--help", "-h", "serve --help"])("%s prints the usage and exits 0 without starting a server", async (command) => {
    const args = command.split(" ");
    // PORT=abc: a server start would fail with exit code 2, so exit 0 proves none was attempted.
    const result = await execa("node", [cli, ...args], { env: { PORT: "abc" }, reject: false, timeout: CLI_TIMEOUT_MS });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("usage:");
    expect(result.stdout).toContain("lattice-gateway token:issue --tenant <tenant>");
  });

  it("token:issue --help prints its usage and exits 0", async () => {
    const result = await execa("node", [cli, "token:issue", "--help"], { reject: false, timeout: CLI_TIMEOUT_MS });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("usage: lattice-gateway token:issue --tenant <tenant> --sub <subject> [--scope read|write|admin] [--expires-in 1h]");
  });

  it.each(["--version", "-v"])("%s prints the package version and exits 0", async (flag) => {
    const { version } = JSON.parse(await readFile(resolve(__dirname, "../package.json"), "utf8")) as { version: string };
    const result = await execa("node", [cli, flag], { env: { PORT: "abc" }, reject: false, timeout: CLI_TIMEOUT_MS });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(version);
    // The version last released (changesets bump it at the next), never the placeholder.
    expect(version).toMatch(/^[1-9]\d*\.\d+\.\d+$/);
  });

  it("runs as `pnpm exec lattice-gateway` from the checkout's root", async () => {
    const { version } = JSON.parse(await readFile(resolve(__dirname, "../package.json"), "utf8")) as { version: string };
    const result = await execa("pnpm", ["exec", "lattice-gateway", "--version"], { cwd: resolve(__dirname, "../../.."), timeout: 30_000 });
    expect(result.stdout).toBe(version);
  });
});
