// Two gateways in one process, each on its own stores: nothing of one is visible to the other, and
// closing one leaves the other serving. This holds only because a gateway keeps its wiring in its own
// context, not in module state.
import { Writable } from "node:stream";
import { TASK_LIFECYCLE_TOPIC, type TaskLifecycleEvent } from "@axiom-lattice/protocols";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
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
    expect((await b.get("/api/threads")).json()).toEqual({ threads: [] });
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
});
