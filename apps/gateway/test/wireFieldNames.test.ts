import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// A value a store would refuse is refused at the edge, by the shared field rules (core's
// `fieldRules`), naming the field as the API spells it: never a store's camelCase name, nothing
// written. /api answers 400 INVALID_REQUEST, the LangGraph API 422.
const NUL = "a\u0000b";

/** [method, url, body, the wire field the refusal names] */
type Probe = [method: "POST" | "PATCH" | "PUT", url: string, body: Record<string, unknown>, field: string];

const apiProbes: Probe[] = [
  ["POST", "/api/assistants", { name: "A", system_prompt: NUL }, "system_prompt"],
  ["POST", "/api/assistants", { name: "A", model: { provider: "scripted", api_key: NUL } }, "model.api_key"],
  ["POST", "/api/assistants", { name: "A", model: { provider: "scripted", model: NUL } }, "model.model"],
  ["POST", "/api/assistants", { name: NUL }, "name"],
  ["PATCH", "/api/assistants/probe", { system_prompt: NUL }, "system_prompt"],
  ["POST", "/api/model-providers", { id: "p1", kind: "openai", api_key: NUL }, "api_key"],
  ["POST", "/api/model-providers", { id: "p1", kind: "openai", models: [NUL] }, "models.0"],
  ["PATCH", "/api/model-providers/probe", { api_key: NUL }, "api_key"],
  ["POST", "/api/schedules", { task_type: "agent-message", cron_expression: "0 * * * *", max_runs: 3_000_000_000 }, "max_runs"],
  ["POST", "/api/schedules", { task_type: "agent-message", execute_at: 9_000_000_000_000_000 }, "execute_at"],
  ["POST", "/api/schedules", { task_type: "agent-message", delay_ms: 9_000_000_000_000_000 }, "delay_ms"],
  ["POST", "/api/threads", { assistant_id: "probe", metadata: { note: NUL } }, "metadata"],
  ["POST", "/api/projects", { name: NUL }, "name"],
  ["POST", "/api/projects", { name: "P", description: NUL }, "description"],
  ["POST", "/api/projects", { name: "P", metadata: { note: NUL } }, "metadata"],
  ["POST", "/api/mcp-configs", { key: "m1", config: { transport: "stdio", command: NUL } }, "config.command"],
  ["POST", "/api/mcp-configs", { key: "m1", config: { transport: "stdio", command: "node", args: [NUL] } }, "config.args.0"],
  ["POST", "/api/tasks", { title: NUL, owner_type: "user", owner_id: "u1" }, "title"],
  ["POST", "/api/tasks", { title: "T", description: NUL, owner_type: "user", owner_id: "u1" }, "description"],
  ["POST", "/api/tasks", { title: "T", owner_type: "user", owner_id: "u1", metadata: { note: NUL } }, "metadata"],
  ["POST", "/api/web-apps", { assistant_id: "probe", name: NUL }, "name"],
  ["POST", "/api/web-apps", { assistant_id: "probe", name: "W", appearance: { title: NUL } }, "appearance.title"],
  ["POST", "/api/web-apps", { assistant_id: "probe", name: "W", appearance: { welcome: NUL } }, "appearance.welcome"],
  ["POST", "/api/api-keys", { name: NUL, scopes: ["read"] }, "name"],
];

const langGraphProbes: Probe[] = [
  ["POST", "/assistants", { graph_id: "react", name: NUL }, "name"],
  ["POST", "/assistants", { graph_id: "react", description: NUL }, "description"],
  ["POST", "/assistants", { graph_id: "react", metadata: { note: NUL } }, "metadata"],
  ["POST", "/assistants", { graph_id: "react", context: { system_prompt: NUL } }, "context"],
  ["POST", "/threads", { metadata: { note: NUL } }, "metadata"],
  ["PUT", "/store/items", { namespace: ["notes"], key: "k", value: { a: 1 }, ttl: 0 }, "ttl"],
  ["PUT", "/store/items", { namespace: ["notes"], key: "k", value: { note: NUL } }, "value"],
  ["PUT", "/store/items", { namespace: ["no.period"], key: "k", value: { a: 1 } }, "namespace.0"],
  ["PUT", "/store/items", { namespace: ["notes"], key: "", value: { a: 1 } }, "key"],
  ["POST", "/store/items/search", { namespace_prefix: [""] }, "namespace_prefix.0"],
  ["POST", "/store/namespaces", { max_depth: 0 }, "max_depth"],
];

describe("a value a store would refuse is refused at the edge under its wire name", () => {
  const gateway = useGateway(async ({ post }) => {
    await post("/api/assistants", { id: "probe", name: "Probe" });
    await post("/api/model-providers", { id: "probe", kind: "openai" });
  });
  const send = (method: string, url: string, body: unknown) =>
    gateway.app.inject({ method: method as "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(body) });

  it.each(apiProbes)("/api: %s %s %j names %s", async (method, url, body, field) => {
    const response = await send(method, url, body);
    expect(response.json()).toMatchObject({ code: "INVALID_REQUEST", error: expect.stringContaining(`: ${field}: `) });
    expect(response.statusCode).toBe(400);
  });

  it.each(langGraphProbes)("LangGraph: %s %s %j names %s", async (method, url, body, field) => {
    const response = await send(method, url, body);
    expect(response.json()).toMatchObject({ code: "INVALID_REQUEST", detail: expect.stringContaining(`: ${field}: `) });
    expect(response.statusCode).toBe(422);
  });

  it("writes nothing for a refused value", async () => {
    expect((await gateway.post("/api/projects", { id: "refused", name: NUL })).statusCode).toBe(400);
    expect((await gateway.get("/api/projects/refused")).statusCode).toBe(404);
  });
});
