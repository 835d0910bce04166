// Startup reads the schedules every replica arms, and the outbox carries every later change. A
// change a peer makes between that read and the poller's start must still arrive: the poller's
// cursor is taken before the read. Two gateway contexts on one PostgreSQL database, as two replicas.
import { type TestDatabase, eventually, runRecords } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src";
import { type GatewayContext, createGatewayContext } from "../src/context/gatewayContext";
import { createGatewayLogger } from "../src/server";
import { createMigratedTestDatabase } from "./support";

let database: TestDatabase;
const contexts: GatewayContext[] = [];

async function replica(replicaId: string): Promise<GatewayContext> {
  const config = loadConfig({ DATABASE_URL: database.url, AXIOM_REPLICA_ID: replicaId, LOG_LEVEL: "silent" });
  const context = await createGatewayContext(config, createGatewayLogger(config));
  contexts.push(context);
  return context;
}

beforeAll(async () => {
  database = await createMigratedTestDatabase();
});
afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  await database?.drop();
});

describe("startup: the outbox cursor is taken before the state it guards is read", () => {
  it("a schedule a peer creates while this replica reads its schedules still fires here", async () => {
    const peer = await replica("gw-peer");
    await peer.recover();
    await peer.stores.assistants.createAssistant("default", { id: "echo", name: "Echo", model: { provider: "scripted" } });
    await peer.stores.threads.createThread("default", { id: "morning", assistantId: "echo" });

    const late = await replica("gw-late");
    // The peer creates its schedule right after the late replica read the schedules to arm.
    const readSchedules = late.stores.schedules.getActiveTasks.bind(late.stores.schedules);
    let createdMeanwhile: Promise<{ taskId: string }> | undefined;
    late.stores.schedules.getActiveTasks = async (tenantId) => {
      const tasks = await readSchedules(tenantId);
      createdMeanwhile ??= peer.schedules.scheduleOnce({
        taskType: "agent-message",
        delayMs: 1_500,
        payload: { assistant_id: "echo", thread_id: "morning", message: "good morning" },
      });
      await createdMeanwhile;
      return tasks;
    };
    await late.recover();
    await late.startBackground();
    expect(createdMeanwhile).toBeDefined();
    const { taskId } = await createdMeanwhile!;
    // Only the late replica is left to fire it: it can only if the peer's schedule-changed event reached it.
    await peer.close();

    await eventually("the late replica to fire the schedule", async () => (await late.schedules.get(taskId))?.status === "completed", {
      timeoutMs: 15_000,
    });
    const [run] = await runRecords(late.stores.queue, { tenantId: "default", assistantId: "echo", threadId: "morning" });
    expect(run).toMatchObject({ id: expect.stringContaining(taskId), replicaId: "gw-late", runStatus: "success" });
  }, 30_000);
});
