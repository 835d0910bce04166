import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type EgressPolicy, findEgressRefusal } from "@axiom-lattice/core";
import { FakeOpenAi, countingResolver } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../src/auth/tokenIssuer";
import { McpConnection } from "../src/mcp/mcpConnection";
import { type TestGateway, useGateway } from "./support";

// The egress policy of URLs a tenant names, through the gateway, with authentication on: refused at
// write (400 BASE_URL_NOT_ALLOWED, nothing stored) and at every connection (a row stored before the
// policy changed, a name that resolves to an internal address, a redirect).

const SECRET = "egress-policy-test-secret-of-32-characters";
const TENANT = "tenant-egress";
let bearer: Record<string, string> = {};
const authEnv = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET };

/** A real server on 127.0.0.1 that answers every request with a redirect to `target()` (same path), counting them. */
class Redirector {
  requests = 0;
  private readonly server: Server;

  constructor(status: number, target: () => string) {
    this.server = createServer((request, response) => {
      this.requests += 1;
      request.resume();
      response.writeHead(status, { location: `${new URL(target()).origin}${request.url}` }).end();
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  listen = () => new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  close = () => new Promise<void>((resolve) => this.server.close(() => resolve()));
}

// The internal target every refused URL would reach, and one an operator allows by listing it.
const internalApi = new FakeOpenAi();
const allowedApi = new FakeOpenAi();
let internalUrl = "";
let allowedUrl = "";
// An MCP server's place: it must hear nothing, so it need not speak MCP.
const internalMcp = new Redirector(500, () => "http://unused.test");
const toInternalApi = new Redirector(302, () => internalUrl);
const toAllowedApi = new Redirector(307, () => allowedUrl);
const toInternalMcp = new Redirector(307, () => internalMcp.url);
const redirectors = [internalMcp, toInternalApi, toAllowedApi, toInternalMcp];

beforeAll(async () => {
  [internalUrl, allowedUrl] = await Promise.all([internalApi.start(), allowedApi.start()]);
  await Promise.all(redirectors.map((server) => server.listen()));
  bearer = { authorization: `Bearer ${await issueToken({ secret: SECRET, tenantId: TENANT, subject: "tester", scope: "admin", expiresIn: "1h" })}` };
});
afterAll(async () => {
  await Promise.all([internalApi.stop(), allowedApi.stop(), ...redirectors.map((server) => server.close())]);
});

const send = (gateway: TestGateway, method: "POST" | "PATCH", url: string, payload: unknown) =>
  gateway.app.inject({ method, url, headers: { "content-type": "application/json", ...bearer }, payload: JSON.stringify(payload) });

/** Runs one message on `assistantId` in a new thread; the run's answer. */
async function runOn(gateway: TestGateway, assistantId: string): Promise<{ status: string; error?: string; messages?: unknown[] }> {
  const threadId = `${assistantId}-thread-${Math.random().toString(36).slice(2)}`;
  expect((await send(gateway, "POST", "/api/threads", { thread_id: threadId, assistant_id: assistantId })).statusCode).toBe(201);
  return (await send(gateway, "POST", "/api/runs", { assistant_id: assistantId, thread_id: threadId, message: "hello", mode: "wait" })).json();
}

const REFUSED_AT_WRITE = [
  "http://127.0.0.1:11434/v1",
  "http://2130706433/v1",
  "http://169.254.169.254/latest/meta-data",
  "http://[::ffff:169.254.169.254]/",
  "http://10.0.0.1/v1",
  "http://192.168.1.1/v1",
  "http://[::1]:8000/v1",
  "http://0.0.0.0:8000/v1",
  "http://localhost:8000/v1",
];

describe("URLs a tenant names, at write, with authentication on", () => {
  const gateway = useGateway(async (gw) => {
    expect((await send(gw, "POST", "/api/assistants", { id: "kept", name: "Kept" })).statusCode).toBe(201);
    expect((await send(gw, "POST", "/api/model-providers", { id: "kept-llm", kind: "openai", base_url: "https://llm.example.test/v1" })).statusCode).toBe(201);
    expect((await send(gw, "POST", "/api/mcp-configs", { key: "kept-mcp", config: { transport: "http", url: "https://mcp.example.test/mcp" } })).statusCode).toBe(201);
  }, () => authEnv);

  const refusedWith = (answer: { statusCode: number; json(): unknown }, url: string) => {
    expect(answer.statusCode, url).toBe(400);
    expect(answer.json()).toMatchObject({ code: "BASE_URL_NOT_ALLOWED", error: expect.stringMatching(/ is (not in AXIOM_UPSTREAM_ALLOW|in the .+ range, which is refused)/) });
  };
  const read = async (path: string) => (await gateway.app.inject({ method: "GET", url: path, headers: bearer })).json();

  it.each(REFUSED_AT_WRITE)("an assistant's model baseUrl %s: refused at create and PATCH, nothing stored", async (url) => {
    refusedWith(await send(gateway, "POST", "/api/assistants", { id: "refused", name: "Refused", model: { provider: "openai", base_url: url } }), url);
    expect((await gateway.app.inject({ method: "GET", url: "/api/assistants/refused", headers: bearer })).statusCode).toBe(404);
    refusedWith(await send(gateway, "PATCH", "/api/assistants/kept", { model: { provider: "openai", base_url: url, api_key: "sk-x" } }), url);
    expect(await read("/api/assistants/kept")).toMatchObject({ model: { provider: "scripted" } });
  });

  it.each(REFUSED_AT_WRITE)("a model provider's baseUrl %s: refused at create and PATCH, nothing stored", async (url) => {
    refusedWith(await send(gateway, "POST", "/api/model-providers", { id: "refused-llm", kind: "openai", base_url: url, api_key: "sk-x" }), url);
    expect((await gateway.app.inject({ method: "GET", url: "/api/model-providers/refused-llm", headers: bearer })).statusCode).toBe(404);
    refusedWith(await send(gateway, "PATCH", "/api/model-providers/kept-llm", { base_url: url, api_key: "sk-x" }), url);
    expect(await read("/api/model-providers/kept-llm")).toMatchObject({ base_url: "https://llm.example.test/v1" });
  });

  it.each(REFUSED_AT_WRITE)("an MCP server's url %s: refused at create and PATCH, nothing stored", async (url) => {
    refusedWith(await send(gateway, "POST", "/api/mcp-configs", { key: "refused-mcp", config: { transport: "http", url } }), url);
    expect((await gateway.app.inject({ method: "GET", url: "/api/mcp-configs/refused-mcp", headers: bearer })).statusCode).toBe(404);
    refusedWith(await send(gateway, "PATCH", "/api/mcp-configs/kept-mcp", { config: { transport: "http", url } }), url);
    expect(await read("/api/mcp-configs/kept-mcp")).toMatchObject({ config: { url: "https://mcp.example.test/mcp" } });
  });

  it("accepts a public host name", async () => {
    expect((await send(gateway, "POST", "/api/assistants", { id: "public", name: "Public", model: { provider: "openai", base_url: "https://api.example.test/v1" } })).statusCode).toBe(201);
  });
});

describe("URLs stored behind the policy's back, at connect, with authentication on", () => {
  const gateway = useGateway(async () => {}, () => authEnv);
  const stores = () => gateway.context.stores;

  it.each([
    ["its IP", () => internalUrl],
    ["a name resolving to loopback (localhost)", () => internalUrl.replace("127.0.0.1", "localhost")],
  ])("an assistant's stored baseUrl at %s fails the run with BASE_URL_NOT_ALLOWED; the API hears nothing", async (_, url) => {
    const id = `stored-${Math.random().toString(36).slice(2)}`;
    await stores().assistants.createAssistant(TENANT, { id, name: id, model: { provider: "openai", baseUrl: url(), model: id, apiKey: "sk-internal" }, tools: [] });
    const answer = await runOn(gateway, id);
    expect(answer).toMatchObject({ status: "error", error: expect.stringMatching(/^BASE_URL_NOT_ALLOWED: .*(address 127\.0\.0\.1|address ::1).* is in the loopback range, which is refused/) });
    expect(internalApi.requestsFor(id)).toBe(0);
  });

  it("a model provider's stored baseUrl fails the runs of its assistants the same way", async () => {
    await stores().modelProviders.createProvider(TENANT, { id: "stored-llm", kind: "openai", baseUrl: internalUrl, models: ["via-provider"], apiKey: "sk-internal" });
    expect((await send(gateway, "POST", "/api/assistants", { id: "via-provider", name: "Via", model: { provider: "stored-llm", model: "via-provider" } })).statusCode).toBe(201);
    expect(await runOn(gateway, "via-provider")).toMatchObject({ status: "error", error: expect.stringMatching(/^BASE_URL_NOT_ALLOWED: /) });
    expect(internalApi.requestsFor("via-provider")).toBe(0);
  });

  it("an MCP server's stored url is refused at connect; the server hears nothing", async () => {
    await stores().mcp.create(TENANT, { key: "stored-mcp", config: { transport: "http", url: `${internalMcp.url}/mcp` } });
    const answer = await send(gateway, "POST", "/api/mcp-configs/stored-mcp/connect", {});
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "BASE_URL_NOT_ALLOWED" });
    expect(internalMcp.requests).toBe(0);
  });
});

describe("redirects from an upstream AXIOM_UPSTREAM_ALLOW lists", () => {
  const gateway = useGateway(
    async () => {},
    () => ({ ...authEnv, AXIOM_UPSTREAM_ALLOW: [toInternalApi, toAllowedApi, toInternalMcp].map((server) => server.url.slice("http://".length)).concat(allowedUrl.slice("http://".length).split("/")[0]).join(",") }),
  );

  const assistant = async (id: string, baseUrl: string) =>
    expect((await send(gateway, "POST", "/api/assistants", { id, name: id, model: { provider: "openai", base_url: `${baseUrl}/v1`, model: id, api_key: "sk-test" } })).statusCode).toBe(201);

  it("a 302 to a target it does not list is not followed there: the run fails with UPSTREAM_REDIRECT_BLOCKED, the target hears nothing", async () => {
    await assistant("redirected-inside", toInternalApi.url);
    const answer = await runOn(gateway, "redirected-inside");
    const internalTarget = new URL(internalUrl).host;
    expect(answer).toMatchObject({
      status: "error",
      error: `UPSTREAM_REDIRECT_BLOCKED: ${toInternalApi.url} redirected to ${internalTarget}, which is refused: address 127.0.0.1 is not in AXIOM_UPSTREAM_ALLOW`,
    });
    expect(toInternalApi.requests).toBe(1);
    expect(internalApi.requests.length).toBe(0);
  });

  it("a redirect to a target it lists is followed: the run answers", async () => {
    await assistant("fake-model", toAllowedApi.url);
    const answer = await runOn(gateway, "fake-model");
    expect(answer).toMatchObject({ status: "success" });
    expect(JSON.stringify(answer.messages)).toContain("Hello from the fake API: hello");
    expect(allowedApi.requestsFor("fake-model")).toBe(1);
  });

  it("an MCP server's redirect to a target it does not list is not followed; the target hears nothing", async () => {
    expect((await send(gateway, "POST", "/api/mcp-configs", { key: "redirected-mcp", config: { transport: "http", url: `${toInternalMcp.url}/mcp` } })).statusCode).toBe(201);
    // The MCP SDK follows no redirect to another origin on its own; the egress policy would refuse it anyway.
    expect((await send(gateway, "POST", "/api/mcp-configs/redirected-mcp/connect", {})).statusCode).not.toBe(200);
    expect(toInternalMcp.requests).toBeGreaterThan(0);
    expect(internalMcp.requests).toBe(0);
  });
});
describe("an MCP connection", () => {
  it("connects only where the egress policy allows, whatever was checked before: a name resolving to loopback is refused, and not tried again", async () => {
    const loopback = countingResolver("127.0.0.1");
    const egress: EgressPolicy = { localNetworks: false, resolve: loopback.resolve };
    const url = internalMcp.url.replace("127.0.0.1", "mcp.example.test");
    const failure = await McpConnection.open({ transport: "http", url: `${url}/mcp`, retryAttempts: 2, timeout: 2_000 }, egress, () => {}).then(
      () => undefined,
      (error: unknown) => findEgressRefusal(error)?.message,
    );
    expect(failure).toBe('host "mcp.example.test" (address 127.0.0.1) is in the loopback range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it');
    expect(loopback.count).toBe(1);
    expect(internalMcp.requests).toBe(0);
  });
});
