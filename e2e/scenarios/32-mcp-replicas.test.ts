import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { execa } from "execa";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { REPLICA_HEADER } from "@axiom-lattice/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { type Replica, printLogsOnFailure, startReplicas } from "../harness/replica";

// Issue 39: the gateway as an MCP server, driven by the official MCP SDK client through the
// documented nginx in front of three replicas on PostgreSQL. The server is stateless, so the
// balancer may send each POST of one client to another replica: listing, calling, continuing a
// thread and leaving mid-call all work wherever each request lands, and an assistant created or
// deleted on one replica is in (or out of) the list every other replica serves at once. An API key
// restricted to one assistant sees that one alone, whichever replica answers.

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 32 needs nginx, which is not installed; CI installs it");

let tenants = 0;
const freshTenant = (name: string) => `mcp-${name}-${++tenants}-${process.pid}`;

interface Created {
  assistant_id: string;
  name: string;
}

describe.skipIf(nginxMissing)("scenario 32: MCP clients against three replicas on PostgreSQL, behind nginx", () => {
  let database: TestDatabase;
  let replicas: Replica[] = [];
  let balancer: LoadBalancer;
  const clients: Client[] = [];

  beforeAll(async () => {
    database = await createTestDatabase("lattice_e2e_mcp");
    replicas = await startReplicas(3, { databaseUrl: database.url });
    balancer = await LoadBalancer.start(replicas);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await balancer?.stop();
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await database?.drop();
  });

  /** An MCP SDK client of `tenant`, at `url` (nginx unless a replica is named); `answeredBy` collects the replicas that answered its requests. */
  const mcpClient = async (url: string, tenant: string, answeredBy = new Set<string>()) => {
    const client = new Client({ name: "e2e-mcp", version: "1.0.0" });
    const fetchNoting = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      answeredBy.add(String(response.headers.get(REPLICA_HEADER)));
      return response;
    };
    const headers = { authorization: `Bearer ${await tokenFor(tenant)}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers }, fetch: fetchNoting }));
    clients.push(client);
    return client;
  };

  const createAssistant = (url: string, tenant: string, name: string) =>
    expectOk<Created>(call(url, "POST", "/assistants", { graph_id: "react", name, description: `${name}, over MCP`, context: { model: { provider: "scripted" } } }, { "x-tenant-id": tenant }));

  it("every replica lists an assistant created on one of them at once, and none lists it once deleted on another", async () => {
    printLogsOnFailure(() => replicas);
    const tenant = freshTenant("list");
    const direct = await Promise.all(replicas.map((replica) => mcpClient(replica.url, tenant)));
    const viaNginx = await mcpClient(balancer.url, tenant);
    const titles = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.title);

    // Beside the graph's default assistant (`react`), which the LangGraph API creates for the tenant.
    await createAssistant(replicas[0].url, tenant, "Made on one");
    for (const client of direct) expect(await titles(client)).toContain("Made on one");
    // Several lists through nginx: round-robin hands them to every replica.
    for (let list = 0; list < 3; list += 1) expect(await titles(viaNginx)).toContain("Made on one");

    const second = await createAssistant(replicas[1].url, tenant, "Made on another");
    for (const client of direct) expect(await titles(client)).toContain("Made on another");
    expect((await call(replicas[2].url, "DELETE", `/assistants/${second.assistant_id}`, undefined, { "x-tenant-id": tenant })).status).toBe(204);
    for (const client of [...direct, viaNginx]) expect(await titles(client)).not.toContain("Made on another");
    for (const client of [...direct, viaNginx]) expect(await titles(client)).toContain("Made on one");
  });

  it("calls a tool through nginx with progress, and a second call continues the thread wherever it lands", async () => {
    printLogsOnFailure(() => replicas);
    const tenant = freshTenant("call");
    await createAssistant(balancer.url, tenant, "Echo");
    const answeredBy = new Set<string>();
    const client = await mcpClient(balancer.url, tenant, answeredBy);
    const tool = (await client.listTools()).tools.find((each) => each.title !== "react")!;
    const progress: Progress[] = [];
    const first = await client.callTool({ name: tool.name, arguments: { message: "/drip 150 one two three four five" } }, undefined, { onprogress: (each) => progress.push(each) });
    expect(first.isError).toBeFalsy();
    const { thread_id: threadId } = first.structuredContent as { thread_id: string };
    expect(progress.length).toBeGreaterThanOrEqual(2);

    for (const text of ["two", "three", "four"]) {
      const next = await client.callTool({ name: tool.name, arguments: { message: text, thread_id: threadId } });
      expect(next.structuredContent).toEqual({ answer: `echo: ${text}`, thread_id: threadId });
    }
    const { runs } = await expectOk<{ runs: RunRecord[] }>(call(balancer.url, "GET", `/api/threads/${threadId}/runs`, undefined, { "x-tenant-id": tenant }));
    expect(runs.map((run) => run.status)).toEqual(["success", "success", "success", "success"]);
    // The client's requests (initialize, its notice, a list, four calls) went round all three replicas.
    expect([...answeredBy].sort()).toEqual(replicas.map((replica) => replica.replicaId).sort());
  });

  it("a client that leaves mid-call through nginx has its run aborted, on whichever replica runs it", async () => {
    printLogsOnFailure(() => replicas);
    const tenant = freshTenant("leave");
    await createAssistant(balancer.url, tenant, "Patient");
    const client = await mcpClient(balancer.url, tenant);
    const tool = (await client.listTools()).tools.find((each) => each.title !== "react")!;
    const pending = client.callTool({ name: tool.name, arguments: { message: "/sleep 60000" } }).catch(() => undefined);
    const threadId = await eventually(async () => {
      const { threads } = await expectOk<{ threads: { id: string }[] }>(call(balancer.url, "GET", "/api/threads", undefined, { "x-tenant-id": tenant }));
      return threads[0]?.id;
    });
    const runs = async () => (await expectOk<{ runs: RunRecord[] }>(call(balancer.url, "GET", `/api/threads/${threadId}/runs`, undefined, { "x-tenant-id": tenant }))).runs;
    await eventually(async () => ((await runs())[0]?.status === "running" ? true : undefined), 10_000, "the run to start");
    await client.close();
    await pending;
    await eventually(async () => ((await runs())[0]?.status === "aborted" ? true : undefined), 10_000, "the run to be aborted");
  });

  it("an API key restricted to one assistant, made on one replica, lists and calls that one alone through nginx", async () => {
    printLogsOnFailure(() => replicas);
    const tenant = freshTenant("key");
    const kept = await createAssistant(replicas[0].url, tenant, "Kept");
    await createAssistant(replicas[1].url, tenant, "Hidden");
    const { key } = await expectOk<{ key: string }>(call(replicas[2].url, "POST", "/api/api-keys", { name: "one assistant", scopes: ["write"], assistant_ids: [kept.assistant_id] }, { "x-tenant-id": tenant }), 201);
    const client = new Client({ name: "e2e-mcp-key", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), { requestInit: { headers: { "x-api-key": key } } }));
    clients.push(client);
    for (let list = 0; list < 3; list += 1) expect((await client.listTools()).tools.map((tool) => tool.title)).toEqual(["Kept"]);
    const [tool] = (await client.listTools()).tools;
    expect((await client.callTool({ name: tool.name, arguments: { message: "keyed" } })).structuredContent).toMatchObject({ answer: "echo: keyed" });
  });

  it("the README's MCP client example runs as written, through nginx", async () => {
    printLogsOnFailure(() => replicas);
    const tenant = freshTenant("readme");
    await createAssistant(balancer.url, tenant, "Echo");
    const readme = readFileSync(resolve(__dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Assistants as MCP tools\n"));
    const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBeDefined();
    // Resolved from this folder, where the SDK is installed; the one change: the gateway's port.
    const result = await execa("node", ["--input-type=module", "-e", example!.replace("http://127.0.0.1:4001", balancer.url)], {
      cwd: resolve(__dirname, ".."),
      env: { ...process.env, GATEWAY_TOKEN: await tokenFor(tenant) },
      reject: false,
      timeout: 30_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.some((line) => /^progress \d+ Writing the answer$/.test(line)), result.stdout).toBe(true);
    expect(lines.slice(-2)).toEqual(["echo: /drip 300 hello there", "echo: and again"]);
  });
});
