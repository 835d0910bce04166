// `lattice-gateway task:recover` as a real process on PostgreSQL, next to a gateway on the same
// database: it refuses a task a replica still runs, converges an orphan once (the gateway hears the
// lifecycle event through the outbox), and is a no-op the second time.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { callerResumeMessageId, taskThreadId } from "@axiom-lattice/agent";
import { tryAcquireThreadRun } from "@axiom-lattice/core";
import { PostgreSQLLeaseStore } from "@axiom-lattice/pg-stores";
import type { TaskItem, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { type TestDatabase, eventually, recordingLogger, runRecords } from "@axiom-lattice/testing";
import { execa } from "execa";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { CLI } from "./cliProcess";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const TENANT = "acme";
const ROOT = resolve(__dirname, "../../..");

describe("lattice-gateway task:recover", () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  let context: GatewayContext;
  const events: TaskLifecycleEvent[] = [];

  beforeAll(async () => {
    db = await createMigratedTestDatabase();
    ({ app, context } = await buildTestGateway({ DATABASE_URL: db.url, AXIOM_REPLICA_ID: "gw-a" }));
    context.notifiers.taskLifecycle.subscribe((event) => void events.push(event));
    // Starts the outbox poller: events the CLI appends reach this gateway's listeners.
    await context.recover();
  });
  afterAll(async () => {
    await app.close();
    await context.close();
    await db.drop();
  });

  const recover = (args: string[], env: Record<string, string> = { DATABASE_URL: db.url }) =>
    execa("node", [CLI, "task:recover", ...args], { env: { LOG_LEVEL: "warn", ...env }, extendEnv: false, reject: false, timeout: 30_000 });
  const resultOf = (stdout: string) => JSON.parse(stdout) as unknown;

  async function delegatedTask(overrides: Partial<TaskItem> = {}): Promise<TaskItem> {
    const id = `task-${randomUUID()}`;
    return context.stores.tasks.createTask(TENANT, {
      id,
      ownerType: "agent",
      ownerId: "worker",
      title: "Summarise the report",
      priority: 0,
      status: "in_progress",
      context: { caller: { assistantId: "boss", threadId: `${id}-caller` }, run: { assistantId: "worker", threadId: taskThreadId(id) } },
      ...overrides,
    });
  }
  const callerMessages = async (task: TaskItem) => {
    const scope = { tenantId: TENANT, assistantId: "boss" };
    const { queue } = context.stores;
    const threadId = `${task.id}-caller`;
    // In the order a message moves (a processor may run it meanwhile): never missed, maybe seen twice.
    const all = [...(await queue.getPendingMessages({ ...scope, threadId })), ...(await queue.getProcessingMessages({ ...scope, threadId })), ...(await runRecords(queue, { ...scope, threadId }))];
    return [...new Set(all.map((message) => message.id))];
  };

  it("refuses a task a replica still runs (exit 3), converges it once it is orphaned (exit 0), then does nothing (exit 0)", async () => {
    const task = await delegatedTask();
    const peer = new PostgreSQLLeaseStore({ poolConfig: db.url });
    const held = await tryAcquireThreadRun({ tenantId: TENANT, assistantId: "worker", threadId: taskThreadId(task.id) }, { store: peer, replicaId: "gw-peer", logger: recordingLogger().logger });
    expect(held).not.toBeNull();
    try {
      const live = await recover(["--tenant", TENANT, "--task", task.id]);
      expect(live.exitCode).toBe(3);
      expect(resultOf(live.stdout)).toEqual({ tenant_id: TENANT, task_id: task.id, result: "skipped:live" });
      expect(live.stderr).toContain("a replica still runs it");
      expect(await context.stores.tasks.getTask(TENANT, task.id)).toEqual(task);
    } finally {
      await held?.release();
      await peer.dispose();
    }

    const orphan = await recover(["--tenant", TENANT, "--task", task.id]);
    expect(orphan.exitCode, orphan.stderr).toBe(0);
    expect(resultOf(orphan.stdout)).toEqual({ tenant_id: TENANT, task_id: task.id, result: "converged" });
    expect(await context.stores.tasks.getTask(TENANT, task.id)).toMatchObject({ status: "failed", context: { recovered_by: "system:on-demand-recovery" } });
    expect(await callerMessages(task)).toEqual([callerResumeMessageId(task.id)]);
    await eventually("the gateway to hear the CLI's lifecycle event", () => events.some((event) => event.taskId === task.id));

    const again = await recover(["--tenant", TENANT, "--task", task.id]);
    expect(again.exitCode).toBe(0);
    expect(resultOf(again.stdout)).toEqual({ tenant_id: TENANT, task_id: task.id, result: "skipped:not_in_progress" });
    expect(await callerMessages(task)).toEqual([callerResumeMessageId(task.id)]);
    expect(events.filter((event) => event.taskId === task.id)).toHaveLength(1);
  });

  it("refuses a project task and an unknown task with exit 3, changing nothing", async () => {
    const project = await delegatedTask({ projectId: "apollo" });
    const refused = await recover(["--tenant", TENANT, "--task", project.id]);
    expect(refused.exitCode).toBe(3);
    expect(resultOf(refused.stdout)).toMatchObject({ result: "skipped:project_task" });
    expect(refused.stderr).toContain("project task");
    expect(await context.stores.tasks.getTask(TENANT, project.id)).toEqual(project);

    const missing = await recover(["--tenant", "someone-else", "--task", project.id]);
    expect(missing.exitCode).toBe(3);
    expect(resultOf(missing.stdout)).toMatchObject({ result: "not_found" });
    expect(missing.stderr).toContain("no such task");
  });

  it.each([
    [["--tenant", TENANT], "usage: lattice-gateway task:recover"],
    [["--task", "t1"], "usage: lattice-gateway task:recover"],
    [["--tenant", TENANT, "--task", "t1", "--force"], "Unknown option '--force'"],
  ])("refuses %j with exit code 2", async (args, message) => {
    const result = await recover(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("refuses to run without DATABASE_URL (exit 2)", async () => {
    const result = await recover(["--tenant", TENANT, "--task", "t1"], {});
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("DATABASE_URL");
  });

  it("is shown in --help", async () => {
    const result = await execa("node", [CLI, "--help"], { reject: false, timeout: 10_000 });
    expect(result.stdout).toContain("lattice-gateway task:recover --tenant <tenant> --task <task id>");
  });

  // The README's one-task example (in "The task store"), as written; the reader's database URL is the one change.
  it("the README's task:recover example prints what the README shows", async () => {
    await delegatedTask({ id: "42" });
    const readme = readFileSync(resolve(ROOT, "README.md"), "utf8");
    const [, command, printed] = /^\$ (DATABASE_URL=postgres:\/\/… .* task:recover .*)\n(.*)$/m.exec(readme) ?? [];
    expect(command).toBeDefined();
    const result = await execa("bash", ["-c", command.replace("postgres://…", db.url)], { cwd: ROOT, env: { LOG_LEVEL: "warn" }, reject: false, timeout: 30_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(printed);
  });
});
