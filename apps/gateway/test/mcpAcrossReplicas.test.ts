// Two gateways on one PostgreSQL database in one process: an MCP server connected on A has its tools
// on B (through the outbox), a run on B calls one, and disconnected on A it is removed on B.
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, useStoreEnv } from "./support";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcpFixtureServer.mjs", import.meta.url));
const TENANT = "default";

describe("MCP servers across replicas", () => {
  const env = useStoreEnv("postgresql");
  const gateways: Array<{ app: FastifyInstance; context: GatewayContext }> = [];
  beforeAll(async () => {
    for (const replica of ["mcp-a", "mcp-b"]) gateways.push(await buildTestGateway({ ...env(), AXIOM_REPLICA_ID: replica }, { started: true }));
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
});
