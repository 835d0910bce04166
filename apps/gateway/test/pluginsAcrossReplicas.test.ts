// Two gateways on one PostgreSQL database in one process: B caches a tenant's plugin catalog, A
// switches echo off, and B — told by the outbox (`plugin-catalog-changed`) — shows it off, refuses
// it to assistants and runs an older assistant listing it without it.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, useStoreEnv } from "./support";

describe("plugin catalog across replicas", () => {
  const env = useStoreEnv("postgresql");
  const gateways: Array<{ app: FastifyInstance; context: GatewayContext }> = [];
  beforeAll(async () => {
    for (const replica of ["plugins-a", "plugins-b"]) gateways.push(await buildTestGateway({ ...env(), AXIOM_REPLICA_ID: replica }, { started: true }));
  });
  afterAll(async () => {
    for (const { app, context } of gateways) {
      await app.close();
      await context.close();
    }
  });

  it("echo switched off on A: B's cached catalog shows it off, B refuses it and runs without it", { timeout: 30_000 }, async () => {
    const [a, b] = gateways;
    const send = (gateway: { app: FastifyInstance }, method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) =>
      gateway.app.inject({ method, url, ...(payload === undefined ? {} : { headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) }) });
    const echoOnB = async () => (await send(b, "GET", "/api/plugins")).json<{ plugins: Array<{ name: string; enabled: boolean }> }>().plugins.find((entry) => entry.name === "echo")?.enabled;

    // B reads the catalog once (checking the assistant) and caches it: later reads do not reach its store.
    const readsOnB = vi.spyOn(b.context.stores.pluginSettings, "list");
    expect((await send(b, "POST", "/api/assistants", { id: "echoer", name: "Echoer", tools: ["echo"] })).statusCode).toBe(201);
    expect((await send(b, "POST", "/api/threads", { thread_id: "t1", assistant_id: "echoer" })).statusCode).toBe(201);
    expect(await echoOnB()).toBe(true);
    expect(await echoOnB()).toBe(true);
    expect(readsOnB).toHaveBeenCalledTimes(1);
    readsOnB.mockRestore();

    expect((await send(a, "PATCH", "/api/plugins/echo", { enabled: false })).json()).toMatchObject({ name: "echo", enabled: false });
    await expect.poll(echoOnB, { timeout: 10_000 }).toBe(false);
    expect((await send(b, "POST", "/api/assistants", { name: "Another", tools: ["echo"] })).json()).toMatchObject({ code: "TOOL_DISABLED" });
    const run = await send(b, "POST", "/api/runs", { assistant_id: "echoer", thread_id: "t1", message: '/tool echo {"text":"hi"}', mode: "wait" });
    expect(run.headers["x-axiom-replica"]).toBe("plugins-b");
    expect(run.json()).toMatchObject({ status: "success" });
    expect(run.json().messages.at(-1).content).toMatch(/^echo returned: Error: Tool "echo" not found/);

    expect((await send(a, "PATCH", "/api/plugins/echo", { enabled: true })).statusCode).toBe(200);
    await expect.poll(echoOnB, { timeout: 10_000 }).toBe(true);
  });
});
