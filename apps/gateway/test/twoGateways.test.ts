// Two gateways in one process, each on its own stores: nothing of one is visible to the other, and
// closing one leaves the other serving. This holds only because a gateway keeps its wiring in its own
// context, not in module state.
import { Writable } from "node:stream";
import { ScriptedChatModel } from "@axiom-lattice/agent";
import { TASK_LIFECYCLE_TOPIC, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { tool } from "@langchain/core/tools";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildGateway, loadConfig } from "../src";
import { gatewayContextOf } from "../src/context/gatewayContext";

/** A gateway whose log lines are kept for the test. */
async function gateway(replicaId: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ AXIOM_REPLICA_ID: replicaId, LOG_LEVEL: "info" });
  const app = await buildGateway(config, { logger: pino({ base: { replica: replicaId } }, sink) });
  const post = (url: string, payload: unknown) =>
    app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const get = (url: string) => app.inject({ method: "GET", url });
  return { app, lines, post, get };
}

const apps: FastifyInstance[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

describe("two gateways in one process", () => {
  it("keep their records, replica ids, logs and outboxes apart, and one serves on after the other closed", async () => {
    const a = await gateway("gw-a");
    const b = await gateway("gw-b");
    apps.push(a.app, b.app);

    expect((await a.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
    expect((await a.post("/api/threads", { thread_id: "t1", assistant_id: "echo" })).statusCode).toBe(201);
    const run = await a.post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "hello", mode: "wait" });
    expect(run.statusCode).toBe(200);
    expect(run.headers["x-axiom-replica"]).toBe("gw-a");

    // What A created does not exist for B.
    expect((await b.get("/api/assistants/echo")).statusCode).toBe(404);
    expect((await b.get("/api/threads/t1")).statusCode).toBe(404);
    expect((await b.get("/api/threads")).json()).toEqual({ threads: [], next_cursor: null, has_more: false });
    expect((await b.get("/health")).headers["x-axiom-replica"]).toBe("gw-b");
    // Each logs through its own logger (both warn that their stores are per-process).
    expect(a.lines.length).toBeGreaterThan(0);
    expect(a.lines.every((line) => line.replica === "gw-a")).toBe(true);
    expect(b.lines.every((line) => line.replica === "gw-b")).toBe(true);

    await a.app.close();

    // B still serves, runs, and still carries its task events to its own outbox.
    expect((await b.post("/api/assistants", { id: "echo", name: "Echo" })).statusCode).toBe(201);
    expect((await b.post("/api/threads", { thread_id: "t1", assistant_id: "echo" })).statusCode).toBe(201);
    const after = await b.post("/api/runs", { assistant_id: "echo", thread_id: "t1", message: "still here", mode: "wait" });
    expect(after.json()).toMatchObject({ status: "success", messages: [{ content: "still here" }, { content: "echo: still here" }] });

    const event: TaskLifecycleEvent = { tenantId: "default", taskId: "task-1", status: "completed", updatedAt: new Date().toISOString() };
    await gatewayContextOf(b.app).notifiers.taskLifecycle.publish(event);
    const { events } = await gatewayContextOf(b.app).stores.outbox.readAfter(null, 10);
    expect(events.map((appended) => [appended.topic, appended.originReplicaId])).toContainEqual([TASK_LIFECYCLE_TOPIC, "gw-b"]);
  });

  it("keep their registered tools and model providers apart", async () => {
    const a = await gateway("gw-tools-a");
    const b = await gateway("gw-tools-b");
    apps.push(a.app, b.app);
    const agentsOf = (app: FastifyInstance) => gatewayContextOf(app).agents;
    const lookup = (name: string) => tool(async () => `${name} found it`, { name, description: `Looks up, on ${name}'s gateway`, schema: z.object({}) });
    agentsOf(a.app).tools.register(lookup("lookup_a"));
    agentsOf(a.app).models.register("provider-a", () => new ScriptedChatModel());
    agentsOf(b.app).tools.register(lookup("lookup_b"));
    agentsOf(b.app).models.register("provider-b", () => new ScriptedChatModel());

    // Each runs an assistant on its own provider and tool.
    expect((await a.post("/api/assistants", { id: "own", name: "Own", model: { provider: "provider-a" }, tools: ["lookup_a"] })).statusCode).toBe(201);
    expect((await a.post("/api/threads", { thread_id: "t1", assistant_id: "own" })).statusCode).toBe(201);
    const run = await a.post("/api/runs", { assistant_id: "own", thread_id: "t1", message: "/tool lookup_a {}", mode: "wait" });
    expect(run.json()).toMatchObject({ status: "success" });
    expect(JSON.stringify(run.json())).toContain("lookup_a found it");
    expect((await b.post("/api/assistants", { id: "own", name: "Own", model: { provider: "provider-b" }, tools: ["lookup_b"] })).statusCode).toBe(201);

    // Neither knows the other's.
    const foreignTool = await b.post("/api/assistants", { id: "foreign-tool", name: "Foreign", tools: ["lookup_a"] });
    expect(foreignTool.json()).toMatchObject({ code: "UNKNOWN_TOOL" });
    const foreignProvider = await a.post("/api/assistants", { id: "foreign-provider", name: "Foreign", model: { provider: "provider-b" } });
    expect(foreignProvider.json()).toMatchObject({ code: "UNKNOWN_MODEL_PROVIDER" });
    const catalog = async (of: typeof a) => ((await of.get("/api/plugins")).json() as { plugins: Array<{ name: string }> }).plugins.map(({ name }) => name);
    expect(await catalog(a)).toContain("lookup_a");
    expect(await catalog(a)).not.toContain("lookup_b");
    expect(await catalog(b)).toContain("lookup_b");
    expect(await catalog(b)).not.toContain("lookup_a");
  });
});
