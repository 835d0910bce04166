import type { ChildProcess } from "node:child_process";
import { ModelProviderRegistry, ToolRegistry, buildAssistantGraph } from "@axiom-lattice/agent";
import { InMemoryMcpServerConfigStore } from "@axiom-lattice/core";
import type { McpServerConfig } from "@axiom-lattice/protocols";
import { recordingLogger } from "@axiom-lattice/testing";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MCP_TIMEOUT_MS } from "../src/defaults";
import { McpServerManager } from "../src/mcp/mcpServerManager";
import { MCP_FIXTURE as FIXTURE, startHttpFixture } from "./mcpFixture";

const TENANT = "t1";
/** The HTTP fixture refuses requests without it: every test over HTTP proves the stored header is sent. */
const AUTHORIZATION = "Bearer fixture-token-0123456789";

/** A scripted run of an assistant with the tenant's MCP tools: the text it ends with. */
async function runWith(manager: McpServerManager, tools: string[], input: string): Promise<string> {
  const graph = buildAssistantGraph({ model: { provider: "scripted" }, tools }, new MemorySaver(), { models: new ModelProviderRegistry(), tools: new ToolRegistry() }, [], undefined, manager.tenantTools(TENANT));
  const state = await graph.invoke({ messages: [new HumanMessage(input)] }, { configurable: { thread_id: "t" } });
  return state.messages.at(-1)!.text;
}

let httpFixture: { url: string; child: ChildProcess };
beforeAll(async () => {
  httpFixture = await startHttpFixture(AUTHORIZATION);
});
afterAll(() => {
  httpFixture.child.kill();
});

/**
 * Every request's bound, connecting included: room for a loaded machine to start a stdio server (a
 * Node process loading the MCP SDK), two at a time when a replica restores.
 */
const TIMEOUT_MS = 10_000;
/**
 * The bound of the case that waits it out, far below the default's (30 s) so that reaching it shows it
 * applies. It bounds that case's connect too, which a loaded machine once took over 3 s for.
 */
const HANG_TIMEOUT_MS = 6_000;

describe.each<[string, (timeout?: number) => McpServerConfig]>([
  ["stdio", (timeout = TIMEOUT_MS) => ({ transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout })],
  ["Streamable HTTP", (timeout = TIMEOUT_MS) => ({ transport: "http", url: httpFixture.url, timeout, headers: { Authorization: AUTHORIZATION } })],
])("MCP server manager over %s", (_transport, config) => {
  let store: InMemoryMcpServerConfigStore;
  let manager: McpServerManager;
  let announced: string[];
  const managers: McpServerManager[] = [];
  const newManager = () => {
    const made = new McpServerManager({ store, logger: recordingLogger().logger, announce: async (tenantId, key) => void announced.push(`${tenantId}/${key}`) });
    managers.push(made);
    return made;
  };
  beforeAll(() => {
    store = new InMemoryMcpServerConfigStore();
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((made) => made.close()));
  });
  const setUp = async (key: string, selectedTools: string[] = [], timeout?: number) => {
    announced = [];
    manager = newManager();
    await store.create(TENANT, { key, config: config(timeout), selectedTools });
  };

  it("connects, registers the selected tools for the tenant only, and a run calls one", async () => {
    await setUp("calc", ["add", "hang"]);
    expect(await manager.connect(TENANT, "calc")).toMatchObject({ status: "connected" });
    expect(announced).toEqual([`${TENANT}/calc`]);
    const offered = manager.offeredTools(TENANT, "calc") ?? [];
    expect(offered.filter((tool) => tool.selected).map((tool) => tool.fullName).sort()).toEqual(["calc__add", "calc__hang"]);
    expect(offered.map((tool) => tool.name).sort()).toEqual(["add", "crash", "env", "hang"]);
    expect([...manager.tenantTools(TENANT).keys()].sort()).toEqual(["calc__add", "calc__hang"]);
    expect(manager.tenantTools("other").size).toBe(0);
    expect(await runWith(manager, ["calc__add"], '/tool calc__add {"a":2,"b":3}')).toBe("calc__add returned: 5");
  });

  it("a tool that hangs fails the run's tool call within the timeout, and the status becomes error", async () => {
    await setUp("slow", [], HANG_TIMEOUT_MS);
    await manager.connect(TENANT, "slow");
    const started = Date.now();
    const answer = await runWith(manager, ["slow__hang"], "/tool slow__hang {}");
    expect(Date.now() - started).toBeLessThan(DEFAULT_MCP_TIMEOUT_MS / 2);
    expect(answer).toMatch(/slow__hang returned: .*MCP server slow failed on hang.*status is now error/s);
    await expect.poll(async () => (await store.get(TENANT, "slow"))?.status).toBe("error");
    expect(manager.tenantTools(TENANT).size).toBe(0);
    expect(announced).toEqual([`${TENANT}/slow`, `${TENANT}/slow`]);
  });

  it("disconnects: the tools are gone and the status is disconnected", async () => {
    await setUp("gone");
    await manager.connect(TENANT, "gone");
    expect(await manager.disconnect(TENANT, "gone")).toMatchObject({ status: "disconnected" });
    expect(manager.tenantTools(TENANT).size).toBe(0);
    expect(() => buildAssistantGraph({ model: { provider: "scripted" }, tools: ["gone__add"] }, new MemorySaver(), { models: new ModelProviderRegistry(), tools: new ToolRegistry() }, [], undefined, manager.tenantTools(TENANT))).toThrow(/Unknown tool/);
  });

  it("reconciles a peer from the store, and a restarted replica restores connected servers", async () => {
    await setUp("shared");
    const peer = newManager();
    await manager.connect(TENANT, "shared");
    await peer.reconcile(TENANT, "shared");
    expect([...peer.tenantTools(TENANT).keys()]).toContain("shared__add");
    const restarted = newManager();
    expect(await restarted.restore()).toMatchObject({ failed: 0 });
    expect([...restarted.tenantTools(TENANT).keys()]).toContain("shared__add");
    await manager.disconnect(TENANT, "shared");
    await peer.reconcile(TENANT, "shared");
    expect(peer.tenantTools(TENANT).size).toBe(0);
  });
});

describe("MCP server manager, servers that cannot serve", () => {
  it("a server that cannot be reached fails the connect and is recorded error", async () => {
    const store = new InMemoryMcpServerConfigStore();
    const manager = new McpServerManager({ store, logger: recordingLogger().logger, announce: async () => {} });
    await store.create(TENANT, { key: "nowhere", config: { transport: "http", url: "http://127.0.0.1:9/mcp", timeout: 1000 } });
    await store.create(TENANT, { key: "nothing", config: { transport: "stdio", command: "/no/such/command", timeout: 1000 } });
    await expect(manager.connect(TENANT, "nowhere")).rejects.toThrow();
    await expect(manager.connect(TENANT, "nothing")).rejects.toThrow();
    expect((await store.list(TENANT, { limit: 100 })).items.map((entry) => entry.status)).toEqual(["error", "error"]);
    expect(manager.tenantTools(TENANT).size).toBe(0);
  });

  it("an HTTP server refusing the request (no Authorization header, or a wrong one) fails the connect", async () => {
    const store = new InMemoryMcpServerConfigStore();
    const manager = new McpServerManager({ store, logger: recordingLogger().logger, announce: async () => {} });
    await store.create(TENANT, { key: "anonymous", config: { transport: "http", url: httpFixture.url, timeout: 1500 } });
    await store.create(TENANT, { key: "wrong", config: { transport: "http", url: httpFixture.url, timeout: 1500, headers: { Authorization: "Bearer wrong" } } });
    await expect(manager.connect(TENANT, "anonymous")).rejects.toThrow(/unauthorized/);
    await expect(manager.connect(TENANT, "wrong")).rejects.toThrow(/unauthorized/);
    await manager.close();
  });

  it("a stdio server gets its configured env over the SDK's safe default, never the gateway's own environment", async () => {
    const store = new InMemoryMcpServerConfigStore();
    const manager = new McpServerManager({ store, logger: recordingLogger().logger, announce: async () => {} });
    process.env.LATTICE_TEST_GATEWAY_ONLY = "gateway-secret";
    try {
      const config = { transport: "stdio" as const, command: process.execPath, args: [FIXTURE, "stdio"], timeout: TIMEOUT_MS, env: { FIXTURE_TOKEN: "env-token-0123456789" } };
      await store.create(TENANT, { key: "child", config });
      await manager.connect(TENANT, "child");
      expect(await runWith(manager, ["child__env"], '/tool child__env {"name":"FIXTURE_TOKEN"}')).toBe("child__env returned: env-token-0123456789");
      expect(await runWith(manager, ["child__env"], '/tool child__env {"name":"LATTICE_TEST_GATEWAY_ONLY"}')).toBe("child__env returned: (unset)");
      expect(await runWith(manager, ["child__env"], '/tool child__env {"name":"PATH"}')).not.toBe("child__env returned: (unset)");
    } finally {
      delete process.env.LATTICE_TEST_GATEWAY_ONLY;
      await manager.close();
    }
  });

  it("a stdio server that crashes mid-call fails the tool call, not the run, and is recorded error", async () => {
    const store = new InMemoryMcpServerConfigStore();
    const manager = new McpServerManager({ store, logger: recordingLogger().logger, announce: async () => {} });
    await store.create(TENANT, { key: "fragile", config: { transport: "stdio", command: process.execPath, args: [FIXTURE, "stdio"], timeout: TIMEOUT_MS } });
    await manager.connect(TENANT, "fragile");
    const started = Date.now();
    expect(await runWith(manager, ["fragile__crash"], "/tool fragile__crash {}")).toMatch(/fragile__crash returned: .*MCP server fragile failed on crash/s);
    expect(Date.now() - started).toBeLessThan(4000);
    await expect.poll(async () => (await store.get(TENANT, "fragile"))?.status).toBe("error");
    await manager.close();
  });
});
