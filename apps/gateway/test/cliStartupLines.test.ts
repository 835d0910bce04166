import { allMigrations } from "@axiom-lattice/pg-stores";
import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, startGatewayProcess } from "./cliProcess";

// What an operator reads at startup: every stdout line is one JSON object naming its replica once,
// and one line says what started (version, store mode, schema, URL).

const REPLICA = "cli-replica-7";

/** Every stdout line parsed as JSON; a line that is not JSON fails the test with the line. */
function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      expect(() => JSON.parse(line), line).not.toThrow();
      // JSON.parse keeps the last of repeated keys: count them in the text.
      expect(line.match(/"replica":/g), line).toHaveLength(1);
      return JSON.parse(line) as Record<string, unknown>;
    });
}

async function startupLines(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const gateway = await startCli({ PORT: "0", AXIOM_REPLICA_ID: REPLICA, ...env });
  const health = await fetch(`${gateway.url}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: "ok", role: env.AXIOM_ROLE ?? "all", version });
  expect(await gateway.stop()).toBe(0);
  const lines = jsonLines(gateway.stdout());
  for (const line of lines) expect(line.replica).toBe(REPLICA);
  return lines;
}

const startupLine = (lines: Array<Record<string, unknown>>) => lines.filter((line) => typeof line.msg === "string" && line.msg.startsWith("gateway ready at "));

let version: string;
let database: TestDatabase;

beforeAll(async () => {
  ({ version } = JSON.parse(await readFile(resolve(__dirname, "../package.json"), "utf8")) as { version: string });
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

describe("lattice-gateway startup lines", () => {
  it("in memory: every line is JSON with the replica once, and one line names version, store mode and URL", async () => {
    const lines = await startupLines({ LOG_LEVEL: "info" });
    const summary = startupLine(lines);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ level: 30, phase: "startup", version, role: "all", storeMode: "memory", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(summary[0]).not.toHaveProperty("migrationsApplied");
    // Lines from the scheduler, the outbox and the server share the same shape.
    expect(lines.length).toBeGreaterThan(3);
  });

  it("on PostgreSQL: the line lists the migrations this replica applied and the schema version; a second start applied none", async () => {
    const versions = allMigrations.map((migration) => migration.version);
    const first = startupLine(await startupLines({ LOG_LEVEL: "info", DATABASE_URL: database.url }));
    expect(first).toEqual([
      expect.objectContaining({ storeMode: "postgresql", migrationsApplied: versions, schemaVersion: Math.max(...versions), databaseConnections: 13, version }),
    ]);
    // A worker says so on its line, and its port answers /health with its role.
    const second = startupLine(await startupLines({ LOG_LEVEL: "info", DATABASE_URL: database.url, AXIOM_ROLE: "worker" }));
    expect(second).toEqual([expect.objectContaining({ role: "worker", storeMode: "postgresql", migrationsApplied: [], schemaVersion: Math.max(...versions) })]);
  });

  it("under LOG_LEVEL=warn the startup line is still printed, and nothing at info besides it", async () => {
    const lines = await startupLines({ LOG_LEVEL: "warn" });
    expect(startupLine(lines)).toHaveLength(1);
    expect(lines.filter((line) => line.level === 30 && !startupLine([line]).length)).toEqual([]);
  });

  it("LOG_FORMAT=pretty prints the same records as lines a person reads (pino-pretty), not JSON", async () => {
    const gateway = await startCli({ PORT: "0", AXIOM_REPLICA_ID: REPLICA, LOG_FORMAT: "pretty" });
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect(await gateway.stop()).toBe(0);
    const ready = gateway.stdout().split("\n").find((line) => line.includes("gateway ready at"));
    expect(ready, gateway.describe()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway ready at http:\/\//);
    expect(gateway.stdout()).toContain(`replica: "${REPLICA}"`);
  });

  it("pnpm start in the checkout prints nothing but the gateway's JSON lines on stdout (the build's output goes to stderr)", async () => {
    const gateway = await startGatewayProcess("pnpm", ["start"], {
      cwd: resolve(__dirname, "../../.."),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", AXIOM_REPLICA_ID: REPLICA },
      timeoutMs: 120_000,
    });
    await gateway.stop();
    expect(startupLine(jsonLines(gateway.stdout()))).toHaveLength(1);
  });
});
