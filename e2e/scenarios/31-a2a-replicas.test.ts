import { type AgentCard, type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { call, eventually, expectOk } from "../harness/client";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { type Replica, printLogsOnFailure, startReplicas } from "../harness/replica";

// Issue 39: every assistant answers A2A clients, on every replica. The official @a2a-js/sdk client
// (A2A 1.0, and its 0.3 compatibility mode), with an API key restricted to the assistant, against
// three replicas on PostgreSQL behind the documented nginx: a task started on one replica is read,
// followed and cancelled from the others, its push notification is sent once by whichever replica
// ends it, and a client whose `message/stream` replica is SIGKILLed subscribes again and gets the
// task's end once.

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 31 needs nginx, which is not installed; CI installs it");

const TENANT = `a2a-replicas-${process.pid}`;
const ASSISTANT = "a2a-agent";

const userMessage = (text: string, taskId = ""): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const request = (text: string, returnImmediately = false) => ({
  tenant: "",
  message: userMessage(text),
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});
const stateOf = (task: Task) => task.status?.state;
const textOf = (task: Task) => task.artifacts.flatMap((artifact) => artifact.parts).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
const FINAL = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_INPUT_REQUIRED];
const finals = (events: StreamResponse[]) => events.filter(({ payload }) => payload?.$case === "statusUpdate" && FINAL.includes(payload.value.status!.state));

describe.skipIf(nginxMissing)("scenario 31: A2A against three replicas on PostgreSQL, behind nginx", () => {
  let database: TestDatabase;
  let replicas: Replica[] = [];
  let balancer: LoadBalancer;
  let authorizedFetch: typeof fetch;

  /** The SDK's client of the assistant at `base` (a replica, or the balancer): 1.0, or 0.3 with `legacy`. */
  const clientAt = async (base: string, { legacy = false } = {}): Promise<{ client: Client; card: AgentCard }> => {
    const resolver = new DefaultAgentCardResolver({ fetchImpl: authorizedFetch });
    const card = await resolver.resolve(`${base}/a2a/${ASSISTANT}/`);
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: authorizedFetch, legacyCompat: { enabled: legacy } })] });
    const version = legacy ? "0.3" : "1.0";
    const client = await factory.createFromAgentCard({ ...card, supportedInterfaces: card.supportedInterfaces.filter((each) => each.protocolVersion === version) });
    return { client, card };
  };

  beforeAll(async () => {
    database = await createTestDatabase("lattice_e2e_a2a");
    // A short run lease: a run whose replica is killed is taken over within seconds. The push
    // notifications' receiver listens on this machine, which the egress policy allows when listed.
    replicas = await startReplicas(3, { databaseUrl: database.url, env: { AXIOM_RUN_LEASE_MS: "3000", AXIOM_UPSTREAM_ALLOW: "127.0.0.1" } });
    balancer = await LoadBalancer.start(replicas);
    const operator = { authorization: `Bearer ${await tokenFor(TENANT)}` };
    await expectOk(call(balancer.url, "POST", "/api/assistants", { id: ASSISTANT, name: "Replicated agent" }, operator), 201);
    // The other agent's credential: an API key restricted to the assistant, as x-api-key.
    const { key } = await expectOk<{ key: string }>(call(balancer.url, "POST", "/api/api-keys", { name: "a2a peer", scopes: ["write"], assistant_ids: [ASSISTANT] }, operator), 201);
    authorizedFetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-api-key", key);
      return fetch(input, { ...init, headers });
    };
  });
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await database?.drop();
  });

  it("a task started on one replica is read, followed to its end and cancelled from the others; the card names the balancer", async () => {
    printLogsOnFailure(() => replicas);
    const [first, second, third] = await Promise.all(replicas.map(async (replica) => (await clientAt(replica.url)).client));
    expect((await clientAt(balancer.url)).card.supportedInterfaces[0].url).toBe(`${balancer.url}/a2a/${ASSISTANT}`);

    const task = (await first.sendMessage(request("/drip 150 one two three four five six", true))) as Task;
    expect(stateOf(await second.getTask({ tenant: "", id: task.id }))).not.toBe(TaskState.TASK_STATE_COMPLETED);
    const events: StreamResponse[] = [];
    for await (const event of third.resubscribeTask({ tenant: "", id: task.id })) events.push(event);
    expect(events[0].payload).toMatchObject({ $case: "task", value: { id: task.id } });
    expect(finals(events)).toHaveLength(1);
    const done = await first.getTask({ tenant: "", id: task.id });
    expect([stateOf(done), textOf(done)]).toEqual([TaskState.TASK_STATE_COMPLETED, "echo: /drip 150 one two three four five six"]);

    const long = (await second.sendMessage(request("/sleep 30000", true))) as Task;
    expect(stateOf(await third.cancelTask({ tenant: "", id: long.id, metadata: undefined }))).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf(await first.getTask({ tenant: "", id: long.id }))).toBe(TaskState.TASK_STATE_CANCELED);
    const listed = await second.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined });
    expect(listed.tasks.map((each) => each.id)).toEqual([task.id]);
  });

  it("a push configuration set on one replica for a task running on another: the task's end is POSTed once", async () => {
    printLogsOnFailure(() => replicas);
    const received: Array<Record<string, unknown>> = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const [first, , third] = await Promise.all(replicas.map(async (replica) => (await clientAt(replica.url)).client));
      const task = (await first.sendMessage(request("/sleep 1500", true))) as Task;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await third.createTaskPushNotificationConfig({ tenant: "", id: "hook", taskId: task.id, url, token: "t", authentication: undefined });
      await eventually(async () => (received.length > 0 ? true : undefined), 15_000, "the push notification");
      // Sent by the replica that ended the run, once.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ task: { id: task.id, status: { state: "TASK_STATE_COMPLETED" } } });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  // Last: it kills a replica.
  it("a replica SIGKILLed during message/stream: the 0.3 client resubscribes through nginx and gets the task's end once", async () => {
    printLogsOnFailure(() => replicas);
    const victim = replicas[0];
    const { client: pinned } = await clientAt(victim.url, { legacy: true });
    const { client: viaBalancer } = await clientAt(balancer.url, { legacy: true });
    const text = `/drip 300 ${Array.from({ length: 14 }, (_, i) => `w${i}`).join(" ")}`;

    const stream = pinned.sendMessageStream({ tenant: "", message: userMessage(text), configuration: undefined, metadata: undefined });
    const before: StreamResponse[] = [];
    for await (const event of stream) {
      before.push(event);
      // Killed once the answer is streaming.
      if (event.payload?.$case === "artifactUpdate") break;
    }
    const taskId = (before[0].payload as { value: Task }).value.id;
    await victim.stop("SIGKILL");

    const after: StreamResponse[] = [];
    for await (const event of viaBalancer.resubscribeTask({ tenant: "", id: taskId })) after.push(event);
    expect(after[0].payload).toMatchObject({ $case: "task", value: { id: taskId } });
    expect(finals(before)).toHaveLength(0);
    expect(finals(after)).toHaveLength(1);
    expect(after.at(-1)!.payload).toMatchObject({ $case: "statusUpdate", value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    const ended = await eventually(async () => {
      const task = await viaBalancer.getTask({ tenant: "", id: taskId });
      return stateOf(task) === TaskState.TASK_STATE_COMPLETED ? task : undefined;
    });
    expect(textOf(ended)).toBe(`echo: ${text}`);
  });
});
