import type { CreateMcpServerConfigRequest, McpServerConfigStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";
import { pagedListContract } from "./pagedListContract";

const stdio = (key: string): CreateMcpServerConfigRequest => ({
  key,
  config: { transport: "stdio", command: "node", args: ["server.js"], timeout: 5000, retryAttempts: 1 },
  selectedTools: ["add"],
});

const http = (key: string): CreateMcpServerConfigRequest => ({ key, config: { transport: "http", url: "http://127.0.0.1:9/mcp" } });

/**
 * The {@link McpServerConfigStore} contract. Every implementation runs this same suite, so their
 * semantics cannot drift. `makeStore` may return the same store for every call.
 */
export function mcpServerConfigStoreContract(name: string, makeStore: () => Promise<McpServerConfigStore>): void {
  describe(`McpServerConfigStore contract: ${name}`, () => {
    let store: McpServerConfigStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it("creates configurations with defaults, reads them back and lists them in creation order", async () => {
      const tenant = fresh("tenant");
      const created = await store.create(tenant, stdio("calc"));
      expect(created).toMatchObject({ ...stdio("calc"), tenantId: tenant, status: "disconnected" });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(await store.get(tenant, "calc")).toEqual(created);
      const minimal = await store.create(tenant, http("remote"));
      expect(minimal).toMatchObject({ key: "remote", config: { transport: "http", url: "http://127.0.0.1:9/mcp" }, selectedTools: [], status: "disconnected" });
      expect((await store.list(tenant, { limit: 100 })).items.map((entry) => entry.key)).toEqual(["calc", "remote"]);
    });

    it("keeps only known settings, with headers for http and env for stdio", async () => {
      const tenant = fresh("tenant");
      const config = { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer s3cret" }, stray: true };
      const created = await store.create(tenant, { key: "k", config: config as never, stray: 1 } as never);
      expect(created.config).toEqual({ transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer s3cret" } });
      expect((await store.get(tenant, "k"))?.config).toEqual(created.config);
      const child = await store.create(tenant, { key: "child", config: { transport: "stdio", command: "node", env: { API_TOKEN: "s3cret", _X1: "y" } } });
      expect((await store.get(tenant, "child"))?.config).toEqual({ transport: "stdio", command: "node", env: { API_TOKEN: "s3cret", _X1: "y" } });
      expect(child.config.env).toEqual({ API_TOKEN: "s3cret", _X1: "y" });
    });

    it.each([
      ["headers on stdio", { transport: "stdio", command: "node", headers: { A: "b" } }],
      ["env on http", { transport: "http", url: "https://mcp.example/mcp", env: { A: "b" } }],
      ["a header name that is no HTTP token", { transport: "http", url: "https://mcp.example/mcp", headers: { "Bad Name": "b" } }],
      ["one header named twice", { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "a", authorization: "b" } }],
      ["a header value with a line break", { transport: "http", url: "https://mcp.example/mcp", headers: { A: "b\r\nX-Injected: 1" } }],
      ["a header the MCP client sets itself", { transport: "http", url: "https://mcp.example/mcp", headers: { "MCP-Session-Id": "hijacked" } }],
      ["an env name starting with a digit", { transport: "stdio", command: "node", env: { "1A": "b" } }],
      ["an empty env value", { transport: "stdio", command: "node", env: { A: "" } }],
      ["a value over 8192 characters", { transport: "stdio", command: "node", env: { A: "x".repeat(8193) } }],
      ["33 headers", { transport: "http", url: "https://mcp.example/mcp", headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`h${i}`, "v"])) }],
    ])("refuses %s, storing nothing", async (_, config) => {
      const tenant = fresh("tenant");
      await expect(store.create(tenant, { key: "k", config: config as never })).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.list(tenant, { limit: 100 })).items).toEqual([]);
    });

    it("keeps the stored headers or env when an update's configuration omits them, drops them with their transport", async () => {
      const tenant = fresh("tenant");
      await store.create(tenant, { key: "k", config: { transport: "http", url: "https://a.example/mcp", headers: { Authorization: "Bearer one" } } });
      const kept = await store.update(tenant, "k", { config: { transport: "http", url: "https://a.example/mcp", timeout: 100 } });
      expect(kept?.config).toEqual({ transport: "http", url: "https://a.example/mcp", timeout: 100, headers: { Authorization: "Bearer one" } });
      const replaced = await store.update(tenant, "k", { config: { transport: "http", url: "https://b.example/mcp", headers: { "X-Key": "two" } } });
      expect(replaced?.config.headers).toEqual({ "X-Key": "two" });
      expect((await store.update(tenant, "k", { status: "connected" }))?.config.headers).toEqual({ "X-Key": "two" });
      const moved = await store.update(tenant, "k", { config: { transport: "stdio", command: "node" } });
      expect(moved?.config).toEqual({ transport: "stdio", command: "node" });
      await store.update(tenant, "k", { config: { transport: "stdio", command: "node", args: ["server.js"], env: { TOKEN: "t" } } });
      expect((await store.update(tenant, "k", { config: { transport: "stdio", command: "node", args: ["server.js"], timeout: 100 } }))?.config).toMatchObject({ env: { TOKEN: "t" } });
    });

    it.each([
      ["headers to another url", { transport: "http", url: "https://a.example/mcp", headers: { Authorization: "Bearer one" } }, { transport: "http", url: "https://attacker.example/mcp" }],
      ["env to another command", { transport: "stdio", command: "node", args: ["server.js"], env: { TOKEN: "t" } }, { transport: "stdio", command: "python3", args: ["server.js"] }],
      ["env to other args", { transport: "stdio", command: "node", args: ["server.js"], env: { TOKEN: "t" } }, { transport: "stdio", command: "node", args: ["-e", "leak()"] }],
    ])("never moves stored %s unless the update gives them again (SECRETS_REQUIRED)", async (_, config, next) => {
      const tenant = fresh("tenant");
      const created = await store.create(tenant, { key: "k", config: config as never });
      await expect(store.update(tenant, "k", { config: next as never })).rejects.toMatchObject({ code: "SECRETS_REQUIRED" });
      expect(await store.get(tenant, "k")).toEqual(created);
      const given = { ...next, ...(next.transport === "http" ? { headers: {} } : { env: {} }) };
      expect((await store.update(tenant, "k", { config: given as never }))?.config).toEqual(given);
    });

    it("refuses a key the tenant already uses, also when racers use it at once", async () => {
      const tenant = fresh("tenant");
      await store.create(tenant, stdio("same"));
      await expect(store.create(tenant, http("same"))).rejects.toMatchObject({ code: "ALREADY_EXISTS", kind: "mcp-config" });
      expect((await store.get(tenant, "same"))?.config.transport).toBe("stdio");
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => store.create(tenant, stdio("raced"))));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    });

    it("isolates tenants: the same key in two tenants is two configurations, invisible to each other", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.create(a, stdio("shared"));
      expect(await store.get(b, "shared")).toBeNull();
      expect((await store.list(b, { limit: 100 })).items).toEqual([]);
      expect(await store.update(b, "shared", { status: "connected" })).toBeNull();
      expect(await store.delete(b, "shared")).toBe(false);
      await store.create(b, http("shared"));
      expect((await store.get(a, "shared"))?.config.transport).toBe("stdio");
      expect(await store.delete(b, "shared")).toBe(true);
      expect((await store.get(a, "shared"))?.status).toBe("disconnected");
    });

    it("updates only the given fields and deletes", async () => {
      const tenant = fresh("tenant");
      const created = await store.create(tenant, stdio("k"));
      const updated = await store.update(tenant, "k", { status: "connected", selectedTools: ["add", "add", "slow"] });
      expect(updated).toMatchObject({ ...stdio("k"), status: "connected", selectedTools: ["add", "slow"], createdAt: created.createdAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
      expect(await store.get(tenant, "k")).toEqual(updated);
      const moved = await store.update(tenant, "k", { config: { transport: "http", url: "https://x.example/mcp" } });
      expect(moved).toMatchObject({ config: { transport: "http", url: "https://x.example/mcp" }, status: "connected", selectedTools: ["add", "slow"] });
      expect(await store.update(tenant, "missing", { status: "error" })).toBeNull();
      expect(await store.delete(tenant, "k")).toBe(true);
      expect(await store.delete(tenant, "k")).toBe(false);
    });

    it("lists the connected configurations of every tenant", async () => {
      const [a, b] = [fresh("tenant"), fresh("tenant")];
      await store.create(a, { ...stdio("on"), status: "connected" });
      await store.create(a, stdio("off"));
      await store.create(b, { ...http("on"), status: "connected" });
      await store.create(b, { ...http("failed"), status: "error" });
      const connected = (await store.listConnected()).filter((entry) => entry.tenantId === a || entry.tenantId === b);
      expect(connected.map((entry) => `${entry.tenantId === a ? "a" : "b"}/${entry.key}`).sort()).toEqual(["a/on", "b/on"]);
      await store.update(a, "on", { status: "disconnected" });
      expect((await store.listConnected()).some((entry) => entry.tenantId === a)).toBe(false);
    });

    it.each<[string, (store: McpServerConfigStore, tenant: string) => Promise<unknown>]>([
      ["an empty tenant", (s) => s.create("", stdio("x"))],
      ["a key with a double underscore", (s, t) => s.create(t, stdio("a__b"))],
      ["a key with a slash", (s, t) => s.create(t, stdio("a/b"))],
      ["an unknown transport", (s, t) => s.create(t, { key: "x", config: { transport: "sse" } as never })],
      ["a stdio server without a command", (s, t) => s.create(t, { key: "x", config: { transport: "stdio" } })],
      ["a stdio server with a url", (s, t) => s.create(t, { key: "x", config: { transport: "stdio", command: "node", url: "http://a" } })],
      ["an http server without a url", (s, t) => s.create(t, { key: "x", config: { transport: "http" } })],
      ["a file url", (s, t) => s.create(t, { key: "x", config: { transport: "http", url: "file:///etc/passwd" } })],
      ["a zero timeout", (s, t) => s.create(t, { key: "x", config: { transport: "http", url: "http://a", timeout: 0 } })],
      ["a timeout above ten minutes", (s, t) => s.create(t, { key: "x", config: { transport: "http", url: "http://a", timeout: 600_001 } })],
      ["negative retries", (s, t) => s.create(t, { key: "x", config: { transport: "http", url: "http://a", retryAttempts: -1 } })],
      ["selected tools that are no list", (s, t) => s.create(t, { ...stdio("x"), selectedTools: "add" as never })],
      ["an unknown status", (s, t) => s.create(t, { ...stdio("x"), status: "up" as never })],
      ["an update with an unknown status", (s, t) => s.update(t, "x", { status: "up" as never })],
    ])("refuses %s with a typed error and writes nothing", async (_label, call) => {
      const tenant = fresh("tenant");
      await expect(call(store, tenant)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      expect((await store.list(tenant, { limit: 100 })).items).toEqual([]);
    });

    // Keys descending, creation ascending: keys alone order them the other way.
    pagedListContract("list", async () => ({
      add: (tenant, index) => store.create(tenant, http(`server-${99 - index}`)),
      remove: async (tenant, entry) => void (await store.delete(tenant, entry.key)),
      list: (tenant, page) => store.list(tenant, page),
      idOf: (entry) => entry.key,
    }));
  });
}
