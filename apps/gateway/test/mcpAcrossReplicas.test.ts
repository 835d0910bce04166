// Two gateways on one PostgreSQL database in one process: an MCP server connected on A has its tools
// on B (through the outbox), a run on B calls one, and disconnected on A it is removed on B. Env
// sealed by A (both share one key list) reaches B's child, and survives a change on B omitting it.
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { MCP_FIXTURE as FIXTURE } from "./mcpFixture";
import { buildTestGateway, useStoreEnv } from "./support";

const TENANT = "default";
const LATTICE_ENCRYPTION_KEY = `v1:${randomBytes(32).toString("base64")}`;

describe("MCP servers across replicas", () => {
  const env = useStoreEnv("postgresql");
  const gateways: Array<{ app: FastifyInstance; context: GatewayContext }> = [];
  beforeAll(async () => {
    for (const replica of ["mcp-a", "mcp-b"]) gateways.push(await buildTestGateway({ ...env(), AXIOM_REPLICA_ID: replica, LATTICE_ENCRYPTION_KEY }, { started: true }));
  });
  afterAll(async () => {
    for (const { app, context } of gateways) {
      await app.close();
      await context.close();
    }
  });

  it("connected on A: its tools on B and a run on B calls one; disconnected on A: removed on B", async () => {
    const [a, b] = gateways;
    await a.context.stores.mcp.create(TENANT, { key: "calc", config: { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"] }, selectedTools: ["add"] });
    expect(await a.context.mcp.connect(TENANT, "calc")).toMatchObject({ status: "connected" });
    await expect.poll(() => [...b.context.mcp.tenantTools(TENANT).keys()], { timeout: 10_000 }).toEqual(["calc__add"]);

    const post = (url: string, payload: unknown) => b.app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
    expect((await post("/api/assistants", { id: "adder", name: "Adder", model: { provider: "scripted" }, tools: ["calc__add"] })).statusCode).toBe(201);
    expect((await post("/api/threads", { thread_id: "t1", assistant_id: "adder" })).statusCode).toBe(201);
    const run = await post("/api/runs", { assistant_id: "adder", thread_id: "t1", message: '/tool calc__add {"a":20,"b":22}', mode: "wait" });
    expect(run.json()).toMatchObject({ status: "success" });
    expect(run.json().messages.at(-1).content).toBe("calc__add returned: 42");

    await a.context.mcp.disconnect(TENANT, "calc");
    await expect.poll(() => b.context.mcp.tenantTools(TENANT).size, { timeout: 10_000 }).toBe(0);
    expect(a.context.mcp.tenantTools(TENANT).size).toBe(0);
  });

  it("env sealed on A reaches the child B starts, and a change on B that omits it keeps it on A", async () => {
    const [a, b] = gateways;
    const inject = (gateway: (typeof gateways)[number], method: "POST" | "PATCH", url: string, payload: unknown) =>
      gateway.app.inject({ method, url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
    const config = { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"] };
    expect((await inject(a, "POST", "/api/mcp-configs", { key: "vault", config: { ...config, env: { VAULT_TOKEN: "replica-secret" } }, selected_tools: ["env"] })).statusCode).toBe(201);
    expect((await inject(a, "POST", "/api/mcp-configs/vault/connect", {})).statusCode).toBe(200);
    await expect.poll(() => [...b.context.mcp.tenantTools(TENANT).keys()], { timeout: 10_000 }).toEqual(["vault__env"]);
    expect((await inject(b, "POST", "/api/assistants", { id: "reader", name: "Reader", model: { provider: "scripted" }, tools: ["vault__env"] })).statusCode).toBe(201);
    let threads = 0;
    /** A run on a fresh thread calling the tool: what it returned, or the code of a refused run. */
    const read = async (gateway: (typeof gateways)[number]) => {
      const thread = `reader-${(threads += 1)}`;
      expect((await inject(gateway, "POST", "/api/threads", { thread_id: thread, assistant_id: "reader" })).statusCode).toBe(201);
      const run = await inject(gateway, "POST", "/api/runs", { assistant_id: "reader", thread_id: thread, message: '/tool vault__env {"name":"VAULT_TOKEN"}', mode: "wait" });
      return run.statusCode === 200 ? (run.json().messages.at(-1).content as string) : (run.json().code as string);
    };
    expect(await read(b)).toBe("vault__env returned: replica-secret");

    expect((await inject(b, "PATCH", "/api/mcp-configs/vault", { config: { ...config, timeout: 8000 } })).json()).toMatchObject({ config: { env_names: ["VAULT_TOKEN"] } });
    // A reconnects to the changed configuration (announced by B) with the env it kept.
    await expect.poll(() => read(a), { timeout: 10_000 }).toBe("vault__env returned: replica-secret");
    expect((await a.context.stores.mcp.get(TENANT, "vault"))?.config).toMatchObject({ timeout: 8000, env: { VAULT_TOKEN: "replica-secret" } });
  });
});
