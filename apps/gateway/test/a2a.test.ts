// A2A through the official @a2a-js/sdk 1.3 client, in A2A 1.0 and in its 0.3 compatibility mode, against
// a listening gateway on each kind of store; bad input through plain fetch. Every answer is checked
// against the OpenAPI document. The replicas' side is e2e/scenarios/31-a2a-replicas.test.ts.
import { type AgentCard, type Message, Role, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../src/auth/principal";
import { issueToken } from "../src/auth/tokenIssuer";
import type { GatewayContext } from "../src/context/gatewayContext";
import { useDocumentedResponses } from "./documentedResponses";
import { buildTestGateway, useStoreEnv } from "./support";

const TENANT = "a2a-tenant";
const ASSISTANT = "a2a-helper";
const tenantHeaders = { "x-tenant-id": TENANT };

/** The SDK's requests, with the tenant header (development mode: no credential). */
const tenantFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-tenant-id", TENANT);
  return fetch(input, { ...init, headers });
};

const userMessage = (text: string, ids: { taskId?: string; contextId?: string } = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: ids.contextId ?? "",
  taskId: ids.taskId ?? "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** A user's message as A2A 1.0's JSON carries it. */
const userMessageJson = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });

const send = (client: Client, text: string, options: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {}) =>
  client.sendMessage({
    tenant: "",
    message: userMessage(text, options),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: options.returnImmediately ?? false },
    metadata: undefined,
  }) as Promise<Task>;

/** An answer's JSON body: a JSON-RPC answer or the gateway's error. */
const bodyOf = async (response: Response) => (await response.json()) as { code?: string; error?: { code: number; message: string } } & Record<string, unknown>;

/** A webhook receiver on this machine: the notifications it was sent, with their headers. */
async function receiver() {
  const received: Array<{ headers: Record<string, string | string[] | undefined>; body: Record<string, unknown> }> = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push({ headers: request.headers, body: JSON.parse(body) as Record<string, unknown> });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const textOf = (task: Task) => task.artifacts.flatMap((artifact) => artifact.parts).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
const stateOf = (task: Task) => task.status?.state;

/** What a stream said, in order: each event's kind and, for status updates, the state. */
async function collect(stream: AsyncIterable<StreamResponse>) {
  const events: StreamResponse["payload"][] = [];
  for await (const event of stream) events.push(event.payload);
  return events;
}
const ends = (events: StreamResponse["payload"][]) =>
  events.filter((event) => event?.$case === "statusUpdate" && [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_INPUT_REQUIRED].includes(event.value.status!.state));

describe.each(["memory", "postgresql"])("A2A on %s stores", (stores) => {
  const env = useStoreEnv(stores);
  const checkResponses = useDocumentedResponses();
  let app: FastifyInstance;
  let context: GatewayContext;
  let base = "";
  let card: AgentCard;
  let client: Client;
  let legacy: Client;

  const rpc = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/a2a/${ASSISTANT}`, { method: "POST", headers: { "content-type": "application/json", ...tenantHeaders, ...headers }, body });
  const stored = async () => {
    const threads = await context.stores.threads.listThreads(TENANT, { limit: 1000 }, { assistantId: ASSISTANT });
    return threads.items.length;
  };

  beforeAll(async () => {
    ({ app, context } = await buildTestGateway(env(), { started: true }));
    checkResponses(app);
    await app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const created = await app.inject({
      method: "POST",
      url: "/api/assistants",
      headers: { ...tenantHeaders, "content-type": "application/json" },
      payload: JSON.stringify({ id: ASSISTANT, name: "Helper", tools: ["ask_human"] }),
    });
    expect(created.statusCode).toBe(201);
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: tenantFetch })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: tenantFetch }) });
    client = await factory.createFromUrl(`${base}/a2a/${ASSISTANT}/`);
    card = await client.getAgentCard();
    // The 0.3 client: the card's 0.3 interface only, which the factory's compatibility mode speaks.
    const legacyFactory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: tenantFetch, legacyCompat: { enabled: true } })] });
    legacy = await legacyFactory.createFromAgentCard({ ...card, supportedInterfaces: card.supportedInterfaces.filter((each) => each.protocolVersion === "0.3") });
  });
  afterAll(async () => {
    await app?.close();
    await context?.close();
  });

  it("serves the agent card at both addresses: 1.0's form when asked for it, 0.3's otherwise, at the forwarded address", async () => {
    expect(card).toMatchObject({
      name: "Helper",
      supportedInterfaces: [
        { url: `${base}/a2a/${ASSISTANT}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: `${base}/a2a/${ASSISTANT}`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
      capabilities: { streaming: true, pushNotifications: true },
      skills: [{ id: ASSISTANT, name: "Helper", tags: ["react", "ask_human"] }],
      defaultInputModes: ["text/plain", "application/json"],
      defaultOutputModes: ["text/plain"],
    });
    expect(Object.keys(card.securitySchemes).sort()).toEqual(["apiKey", "bearer"]);
    const byQuery = await fetch(`${base}/.well-known/agent-card.json?assistant_id=${ASSISTANT}`, {
      headers: { ...tenantHeaders, "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.com" },
    });
    expect(byQuery.headers.get("vary")).toMatch(/A2A-Version/);
    expect(await bodyOf(byQuery)).toMatchObject({ protocolVersion: "0.3.0", url: `https://agents.example.com/a2a/${ASSISTANT}`, preferredTransport: "JSONRPC", capabilities: { streaming: true } });
    const missing = await fetch(`${base}/a2a/nobody/.well-known/agent-card.json`, { headers: tenantHeaders });
    expect([missing.status, (await bodyOf(missing)).code]).toEqual([404, "NOT_FOUND"]);
  });

  it("SendMessage waits for the answer, the task's artifact; GetTask reads it with its history; ListTasks lists the context's tasks", async () => {
    const task = await send(client, "hello");
    expect([stateOf(task), textOf(task)]).toEqual([TaskState.TASK_STATE_COMPLETED, "echo: hello"]);
    expect(task.history.map((message) => [message.role, message.parts[0].content?.value])).toEqual([
      [Role.ROLE_USER, "hello"],
      [Role.ROLE_AGENT, "echo: hello"],
    ]);
    const next = await send(client, "again", { contextId: task.contextId });
    expect(next.contextId).toBe(task.contextId);
    const read = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
    expect([read.id, stateOf(read), read.history.length, textOf(read)]).toEqual([task.id, TaskState.TASK_STATE_COMPLETED, 1, "echo: hello"]);
    const listed = await client.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined, includeArtifacts: true });
    expect(listed.tasks.map((each) => [each.id, textOf(each)])).toEqual([
      [next.id, "echo: again"],
      [task.id, "echo: hello"],
    ]);
    expect(listed.totalSize).toBe(2);
    const paged = await client.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: "", statusTimestampAfter: undefined });
    expect([paged.tasks.map((each) => each.id), paged.nextPageToken]).toEqual([[next.id], "1"]);
    // Without a context: the assistant's contexts used last; filtered by state.
    const everywhere = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_COMPLETED, pageToken: "", statusTimestampAfter: undefined });
    expect(everywhere.tasks.map((each) => each.id)).toEqual(expect.arrayContaining([task.id, next.id]));
    expect(everywhere.tasks.every((each) => stateOf(each) === TaskState.TASK_STATE_COMPLETED && each.artifacts.length === 0)).toBe(true);
  });

  it("SendStreamingMessage streams the task, its working state, the answer's text as it comes, then the answer whole and the end once", async () => {
    const events = await collect(client.sendMessageStream({ tenant: "", message: userMessage("/drip 10 one two three"), configuration: undefined, metadata: undefined }));
    expect(events[0]?.$case).toBe("task");
    const deltas = events.flatMap((event) => (event?.$case === "artifactUpdate" && event.value.append ? [event.value.artifact!.parts[0].content?.value] : []));
    expect(deltas.join("")).toBe("echo: /drip 10 one two three");
    const whole = events.filter((event) => event?.$case === "artifactUpdate" && event.value.lastChunk);
    expect(whole).toHaveLength(1);
    expect(ends(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ $case: "statusUpdate", value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
  });

  it("an interrupt is input-required with its question; the next message naming the task answers it, and the task completes", async () => {
    const asked = await send(client, "/interrupt What is your name?");
    expect(stateOf(asked)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.status?.message?.parts[0].content).toEqual({ $case: "text", value: "What is your name?" });
    const answered = await send(client, "Ada", { taskId: asked.id });
    expect([answered.id, answered.contextId, stateOf(answered), textOf(answered)]).toEqual([asked.id, asked.contextId, TaskState.TASK_STATE_COMPLETED, "ask_human returned: Ada"]);
    // Two answers at once to one interrupt: one is taken, the other refused.
    const again = await send(client, "/interrupt Twice?");
    const racing = await Promise.allSettled([send(client, "first", { taskId: again.id, returnImmediately: true }), send(client, "second", { taskId: again.id, returnImmediately: true })]);
    expect(racing.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(racing.find((outcome) => outcome.status === "rejected")).toMatchObject({ reason: expect.any(UnsupportedOperationError) });
    // Ended: it takes no more input, and cannot be cancelled.
    await expect(send(client, "more", { taskId: asked.id })).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(client.cancelTask({ tenant: "", id: asked.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it("CancelTask stops a working task wherever it runs; SubscribeToTask follows a task to its end, once", async () => {
    const long = await send(client, "/sleep 20000", { returnImmediately: true });
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(stateOf(long));
    const cancelled = await client.cancelTask({ tenant: "", id: long.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe(TaskState.TASK_STATE_CANCELED);

    const dripping = await send(client, "/drip 100 a b c d e", { returnImmediately: true });
    const events = await collect(client.resubscribeTask({ tenant: "", id: dripping.id }));
    expect(events[0]).toMatchObject({ $case: "task", value: { id: dripping.id } });
    expect(ends(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ $case: "statusUpdate", value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    // An ended task is read, not subscribed to.
    await expect(collect(client.resubscribeTask({ tenant: "", id: dripping.id }))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it("answers A2A's errors for a task not found", async () => {
    await expect(client.getTask({ tenant: "", id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.cancelTask({ tenant: "", id: "no-such-task", metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: "no-such-task", id: "hook" })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("push notifications: configurations set, read, listed and deleted; a task's stop POSTed to each, in its version's JSON, with its token", async () => {
    const hooks = await receiver();
    try {
      const task = await send(client, "/sleep 400", { returnImmediately: true });
      const config = { tenant: "", id: "hook", taskId: task.id, url: hooks.url, token: "check-me", authentication: undefined };
      expect(await client.createTaskPushNotificationConfig(config)).toMatchObject({ id: "hook", taskId: task.id, url: hooks.url, token: "check-me" });
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" })).toMatchObject({ url: hooks.url });
      await expect.poll(() => hooks.received.length, { timeout: 10_000 }).toBe(1);
      expect(hooks.received[0].headers["x-a2a-notification-token"]).toBe("check-me");
      expect(hooks.received[0].body).toMatchObject({ task: { id: task.id, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ text: "echo: /sleep 400" }] }] } });

      const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
      expect(listed.configs.map((each) => each.id)).toEqual(["hook"]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" });
      await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook" })).rejects.toBeInstanceOf(TaskNotFoundError);

      // Set with the message: there before the task can end.
      const configured = (await client.sendMessage({
        tenant: "",
        message: userMessage("notify me"),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: { tenant: "", id: "", taskId: "", url: hooks.url, token: "", authentication: { scheme: "Bearer", credentials: "receiver-secret" } }, returnImmediately: false },
        metadata: undefined,
      })) as Task;
      await expect.poll(() => hooks.received.length, { timeout: 10_000 }).toBe(2);
      expect(hooks.received[1].headers.authorization).toBe("Bearer receiver-secret");
      expect(hooks.received[1].body).toMatchObject({ task: { id: configured.id, status: { state: "TASK_STATE_COMPLETED" } } });

      // Set by a 0.3 client: notified in 0.3's JSON.
      const old = await send(legacy, "/sleep 400", { returnImmediately: true });
      await legacy.createTaskPushNotificationConfig({ tenant: "", id: "old-hook", taskId: old.id, url: hooks.url, token: "", authentication: undefined });
      await expect.poll(() => hooks.received.length, { timeout: 10_000 }).toBe(3);
      expect(hooks.received[2].body).toMatchObject({ kind: "task", id: old.id, status: { state: "completed" } });
    } finally {
      await hooks.close();
    }
  });

  it("speaks A2A 0.3 to the SDK's compatibility mode: send, stream, get, cancel, resubscribe, an interrupt answered", async () => {
    const task = await send(legacy, "old hello");
    expect([stateOf(task), textOf(task)]).toEqual([TaskState.TASK_STATE_COMPLETED, "echo: old hello"]);
    expect(stateOf(await legacy.getTask({ tenant: "", id: task.id }))).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = await collect(legacy.sendMessageStream({ tenant: "", message: userMessage("/drip 10 x y"), configuration: undefined, metadata: undefined }));
    expect(ends(events)).toHaveLength(1);
    const asked = await send(legacy, "/interrupt Which?");
    expect(stateOf(asked)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(await send(legacy, "this one", { taskId: asked.id }))).toBe("ask_human returned: this one");
    const long = await send(legacy, "/sleep 20000", { returnImmediately: true });
    expect(stateOf(await legacy.cancelTask({ tenant: "", id: long.id, metadata: undefined }))).toBe(TaskState.TASK_STATE_CANCELED);
    const dripping = await send(legacy, "/drip 50 p q r", { returnImmediately: true });
    expect(ends(await collect(legacy.resubscribeTask({ tenant: "", id: dripping.id })))).toHaveLength(1);
    await expect(legacy.getTask({ tenant: "", id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("an API key restricted to the assistant: the SDK client works with it, and another assistant answers as a missing one", async () => {
    const other = await app.inject({ method: "POST", url: "/api/assistants", headers: { ...tenantHeaders, "content-type": "application/json" }, payload: JSON.stringify({ id: "a2a-other", name: "Other" }) });
    expect(other.statusCode).toBe(201);
    const created = await app.inject({
      method: "POST",
      url: "/api/api-keys",
      headers: { ...tenantHeaders, "content-type": "application/json" },
      payload: JSON.stringify({ name: "a2a agent", scopes: ["write"], assistant_ids: [ASSISTANT] }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const { key } = created.json<{ key: string }>();
    const keyFetch: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-api-key", key);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: keyFetch })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: keyFetch }) });
    const keyed = await factory.createFromUrl(`${base}/a2a/${ASSISTANT}/`);
    expect(textOf(await send(keyed, "with a key"))).toBe("echo: with a key");
    for (const url of ["/a2a/a2a-other/.well-known/agent-card.json", "/.well-known/agent-card.json?assistant_id=a2a-other"]) {
      const hidden = await fetch(`${base}${url}`, { headers: { "x-api-key": key } });
      expect([hidden.status, (await bodyOf(hidden)).code]).toEqual([404, "NOT_FOUND"]);
    }
    const call = await fetch(`${base}/a2a/a2a-other`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: userMessageJson("hello") } }),
    });
    expect([call.status, (await bodyOf(call)).code]).toEqual([404, "NOT_FOUND"]);
    expect((await context.stores.threads.listThreads(TENANT, { limit: 10 }, { assistantId: "a2a-other" })).items).toEqual([]);
  });

  it("refuses bad input with a JSON-RPC error or a clear 4xx, storing nothing", async () => {
    const before = await stored();
    const error = async (response: Response) => [response.status, (await bodyOf(response)).error?.code];
    expect(await error(await rpc("{not json"))).toEqual([200, -32700]);
    expect(await error(await rpc(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: userMessage("batched") } }]), { "a2a-version": "1.0" }))).toEqual([200, -32600]);
    expect(await error(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "NoSuchMethod", params: {} }), { "a2a-version": "1.0" }))).toEqual([200, -32601]);
    expect(await error(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tasks/unknown", params: {} })))).toEqual([200, -32601]);
    expect(await error(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "SendMessage", params: {} }), { "a2a-version": "1.0" }))).toEqual([200, -32602]);
    expect(await error(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "  " }] } } }), { "a2a-version": "1.0" }))).toEqual([200, -32602]);
    expect(await error(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "GetTask", params: { id: "x" } }), { "a2a-version": "9.9" }))).toEqual([200, -32009]);
    const oversize = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: { message: userMessage("x".repeat(600_000)) } }), { "a2a-version": "1.0" });
    expect([oversize.status, (await bodyOf(oversize)).code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const tooLong = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "y".repeat(150_000) }] } } }), { "a2a-version": "1.0" });
    expect(await error(tooLong)).toEqual([200, -32602]);
    const unknownAssistant = await fetch(`${base}/a2a/nobody`, { method: "POST", headers: { "content-type": "application/json", ...tenantHeaders }, body: "{}" });
    expect([unknownAssistant.status, (await bodyOf(unknownAssistant)).code]).toEqual([404, "NOT_FOUND"]);
    expect(await stored()).toBe(before);
    // A push configuration whose URL the egress policy refuses is not stored, nor is the task its message would start.
    const refusedPush = await rpc(
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "SendMessage", params: { message: userMessage("never"), configuration: { taskPushNotificationConfig: { url: "ftp://example.com/hook" } } } }),
      { "a2a-version": "1.0" },
    );
    expect(await error(refusedPush)).toEqual([200, -32602]);
    expect(await stored()).toBe(before);
  });
});

describe("A2A with authentication on", () => {
  const SECRET = "an-a2a-test-secret-of-at-least-32-characters";
  const checkResponses = useDocumentedResponses();
  let app: FastifyInstance;
  let context: GatewayContext;
  const bearer = (scope: Scope) => issueToken({ secret: SECRET, tenantId: TENANT, subject: "a2a-tester", scope, expiresIn: "1h" });
  const call = (method: string, params: Record<string, unknown>, headers: Record<string, string>) =>
    app.inject({ method: "POST", url: `/a2a/${ASSISTANT}`, headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers }, payload: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const sendParams = (text: string) => ({ message: userMessageJson(text), configuration: { returnImmediately: true } });

  beforeAll(async () => {
    ({ app, context } = await buildTestGateway({ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AXIOM_RUN_RATE_LIMIT_PER_MINUTE: "2" }));
    checkResponses(app);
    const created = await app.inject({
      method: "POST",
      url: "/api/assistants",
      headers: { authorization: `Bearer ${await bearer("write")}`, "content-type": "application/json" },
      payload: JSON.stringify({ id: ASSISTANT, name: "Helper" }),
    });
    expect(created.statusCode).toBe(201);
  });
  afterAll(async () => {
    await app?.close();
    await context?.close();
  });

  it("asks a credential for the cards and every call; reads need read, sending write; the run rate limit counts messages sent only", async () => {
    const anonymous = await app.inject({ method: "GET", url: `/a2a/${ASSISTANT}/.well-known/agent-card.json` });
    expect([anonymous.statusCode, anonymous.json().code]).toEqual([401, "UNAUTHENTICATED"]);
    const reader = { authorization: `Bearer ${await bearer("read")}` };
    expect((await app.inject({ method: "GET", url: `/.well-known/agent-card.json?assistant_id=${ASSISTANT}`, headers: reader })).statusCode).toBe(200);
    expect((await call("GetTask", { id: "no-such-task" }, reader)).json().error.code).toBe(-32001);
    const refused = await call("SendMessage", sendParams("hello"), reader);
    expect([refused.statusCode, refused.json().code]).toEqual([403, "FORBIDDEN"]);

    // An x-api-key is read as a bearer token is.
    const writer = { "x-api-key": await bearer("write") };
    for (const text of ["one", "two"]) expect((await call("SendMessage", sendParams(text), writer)).json()).toMatchObject({ result: { task: { status: { state: "TASK_STATE_SUBMITTED" } } } });
    const limited = await call("SendMessage", sendParams("three"), writer);
    expect([limited.statusCode, limited.json().code]).toEqual([429, "RATE_LIMITED"]);
    expect((await call("ListTasks", {}, writer)).statusCode).toBe(200);
  });
});

