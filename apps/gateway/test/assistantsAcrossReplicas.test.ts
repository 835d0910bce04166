// Assistants are not cached per replica: each run reads its assistant from the store. Two gateways on
// one PostgreSQL database show it: what A creates or changes is what B runs next, with no outbox
// message between them.
import { FakeOpenAi, type TestDatabase } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const api = new FakeOpenAi();
let apiUrl: string;
let database: TestDatabase;
const gateways: Array<{ app: FastifyInstance; context: GatewayContext }> = [];

async function gateway(replicaId: string) {
  const built = await buildTestGateway({ DATABASE_URL: database.url, AXIOM_REPLICA_ID: replicaId });
  gateways.push(built);
  const send = (method: "POST" | "PATCH", url: string, payload: unknown) =>
    built.app.inject({ method, url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  return { post: (url: string, payload: unknown) => send("POST", url, payload), patch: (url: string, payload: unknown) => send("PATCH", url, payload) };
}

beforeAll(async () => {
  apiUrl = await api.start();
  database = await createMigratedTestDatabase();
});
afterAll(async () => {
  for (const { app, context } of gateways) {
    await app.close();
    await context.close();
  }
  await api.stop();
  await database.drop();
});

describe("assistants across replicas", () => {
  it("an assistant created on A runs on B, and each change on A is what B runs next", async () => {
    const a = await gateway("gw-a");
    const b = await gateway("gw-b");
    const runOnB = async (message: string) => {
      const answer = await b.post("/api/runs", { assistant_id: "shared", thread_id: "shared-thread", message, mode: "wait" });
      expect(answer.headers["x-axiom-replica"]).toBe("gw-b");
      return answer.json();
    };

    expect((await a.post("/api/assistants", { id: "shared", name: "Shared" })).statusCode).toBe(201);
    expect((await b.post("/api/threads", { thread_id: "shared-thread", assistant_id: "shared" })).statusCode).toBe(201);
    expect((await runOnB("hello")).messages.at(-1)).toMatchObject({ content: "echo: hello" });

    const model = { provider: "openai", base_url: apiUrl, model: "fake-model", api_key: "sk-local" };
    expect((await a.patch("/api/assistants/shared", { model, system_prompt: "Answer briefly (v2)" })).statusCode).toBe(200);
    expect((await runOnB("again")).messages.at(-1)).toMatchObject({ content: "Hello from the fake API: again" });
    expect(api.requests.at(-1)!.body.messages[0]).toEqual({ role: "system", content: "Answer briefly (v2)" });

    expect((await a.patch("/api/assistants/shared", { system_prompt: "Answer at length (v3)" })).statusCode).toBe(200);
    // A change that leaves the model out keeps it.
    expect((await runOnB("once more")).messages.at(-1)).toMatchObject({ content: "Hello from the fake API: once more" });
    expect(api.requests.at(-1)!.body.messages[0]).toEqual({ role: "system", content: "Answer at length (v3)" });
  });
});
