import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { FakeOpenAi } from "@axiom-lattice/testing";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

const MCP_FIXTURE = resolve(__dirname, "../../apps/gateway/test/fixtures/mcpFixtureServer.mjs");

interface RunResult {
  status: string;
  error?: string;
  messages: Array<{ type: string; content: string }>;
}

/** The gateway tests' MCP server over Streamable HTTP, in its own process: resolves to its URL. */
async function startMcpServer(): Promise<{ url: string; process: ResultPromise }> {
  const server = execa("node", [MCP_FIXTURE, "http"], { reject: false, cleanup: true });
  const port = await new Promise<string>((found, failed) => {
    let output = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) found(match[1]);
    });
    void server.then(() => failed(new Error(`the MCP fixture exited: ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: server };
}

describe("scenario 8: registries agree across processes", () => {
  const cluster = useCluster();
  const fakeApi = new FakeOpenAi();
  let fakeApiUrl: string;
  let mcpServer: Awaited<ReturnType<typeof startMcpServer>>;
  beforeAll(async () => {
    fakeApiUrl = await fakeApi.start();
    mcpServer = await startMcpServer();
  });
  afterAll(async () => {
    await fakeApi.stop();
    mcpServer.process.kill("SIGKILL");
    await mcpServer.process;
  });

  /** Every registry change is made on A and observed through B, which A never told anything directly. */
  const startPair = async () => {
    // Replicas of one deployment share the key their secrets are sealed with.
    // The fake API and the MCP server listen on loopback, which the replicas (authentication on) refuse unless listed.
    const env = { LATTICE_ENCRYPTION_KEY: `v1:${randomBytes(32).toString("base64")}`, AXIOM_UPSTREAM_ALLOW: "127.0.0.1" };
    const [a, b] = await cluster.start(2, { prefix: "registry", env });
    const runOn = async (url: string, assistantId: string, threadId: string, message: string) => {
      await expectOk(call(url, "POST", "/api/threads", { thread_id: threadId, assistant_id: assistantId }), 201);
      return expectOk<RunResult>(call(url, "POST", "/api/runs", { assistant_id: assistantId, thread_id: threadId, message, mode: "wait" }));
    };
    return { a: a.url, b: b.url, runOn };
  };

  it("an assistant created and changed on A is what B runs next, without restart", async () => {
    const { a, b, runOn } = await startPair();
    await expectOk(call(a, "POST", "/api/assistants", { id: "helper", name: "Helper" }), 201);
    expect((await runOn(b, "helper", "first", "hello")).messages.map((m) => m.content)).toEqual(["hello", "echo: hello"]);

    await expectOk(call(a, "PATCH", "/api/assistants/helper", { tools: ["echo"] }));
    const second = await runOn(b, "helper", "second", '/tool echo {"text":"from B"}');
    expect(second).toMatchObject({ status: "success" });
    expect(second.messages.at(-1)?.content).toBe("echo returned: from B");
  });

  it("a plugin switched off on A is off in B's cached catalog, and B's runs go without it", async () => {
    const { a, b, runOn } = await startPair();
    await expectOk(call(a, "POST", "/api/assistants", { id: "echoer", name: "Echoer", tools: ["echo"] }), 201);
    const echoOnB = async () => (await expectOk<{ plugins: Array<{ name: string; enabled: boolean }> }>(call(b, "GET", "/api/plugins"))).plugins.find((p) => p.name === "echo");
    expect(await echoOnB()).toMatchObject({ enabled: true });

    await expectOk(call(a, "PATCH", "/api/plugins/echo", { enabled: false }));
    await eventually(async () => ((await echoOnB())?.enabled === false ? true : undefined), 15_000, "B dropping its cached catalog");
    const refused = await call(b, "POST", "/api/assistants", { id: "echoer-2", name: "Echoer 2", tools: ["echo"] });
    expect([refused.status, refused.json<{ code: string }>().code]).toEqual([400, "TOOL_DISABLED"]);
    const run = await runOn(b, "echoer", "without-echo", '/tool echo {"text":"hi"}');
    // The model still asks for it (the scripted model calls what it is told); the run has no such tool.
    expect(run.messages.find((message) => message.type === "tool")?.content).toMatch(/^Error: Tool "echo" not found/);
  });

  it("a model provider created on A serves a run on B, with the key sealed on A", async () => {
    const { a, b, runOn } = await startPair();
    await expectOk(call(a, "POST", "/api/model-providers", { id: "team-llm", kind: "openai", base_url: fakeApiUrl, models: ["e2e-model"], api_key: "sk-e2e-key" }), 201);
    await expectOk(call(a, "POST", "/api/assistants", { id: "via-catalog", name: "Catalog", model: { provider: "team-llm" } }), 201);

    const run = await runOn(b, "via-catalog", "catalog-thread", "hi");
    expect(run).toMatchObject({ status: "success" });
    expect(run.messages.at(-1)?.content).toBe("Hello from the fake API: hi");
    expect(fakeApi.requests.filter((request) => request.body.model === "e2e-model").map((request) => request.authorization)).toEqual(["Bearer sk-e2e-key"]);
  });

  it("an MCP server connected on A has its tools on B, a run on B calls one, and disconnected on A it is gone on B", async () => {
    const { a, b, runOn } = await startPair();
    await expectOk(call(a, "POST", "/api/mcp-configs", { key: "calc", config: { transport: "http", url: mcpServer.url, timeout: 5000 }, selected_tools: ["add"] }), 201);
    await expectOk(call(a, "POST", "/api/mcp-configs/calc/connect"));

    // B refuses an assistant naming a tool it does not have, so its acceptance shows B registered it.
    await eventually(
      async () => ((await call(b, "POST", "/api/assistants", { id: "adder", name: "Adder", tools: ["calc__add"] })).status === 201 ? true : undefined),
      15_000,
      "B registering calc__add",
    );
    const run = await runOn(b, "adder", "sums", '/tool calc__add {"a":20,"b":22}');
    expect(run).toMatchObject({ status: "success" });
    expect(run.messages.at(-1)?.content).toBe("calc__add returned: 42");

    await expectOk(call(a, "POST", "/api/mcp-configs/calc/disconnect"));
    const refused = await eventually(
      async () => {
        const patched = await call(b, "PATCH", "/api/assistants/adder", { tools: ["calc__add"] });
        return patched.status === 400 ? patched.json<{ code: string }>() : undefined;
      },
      15_000,
      "B removing calc__add",
    );
    expect(refused.code).toBe("UNKNOWN_TOOL");
    const after = await runOn(b, "adder", "sums-after", '/tool calc__add {"a":1,"b":2}');
    expect(after).toMatchObject({ status: "error", error: expect.stringMatching(/^UNKNOWN_TOOL: /) });
  });
});
