// The registries' API shape (issue 28) on both store kinds: every key of every answer of
// /api/assistants, /api/model-providers, /api/mcp-configs (and a server's tools) and /api/plugins is
// snake_case, free-form values (a tool's JSON Schema) kept as given; each list walks in cursor pages,
// every item once in its order; a cursor no page returned and a limit out of range are refused.
import { describe, expect, it } from "vitest";
import { MCP_FIXTURE } from "./mcpFixture";
import { useGateway, useStoreEnv } from "./support";

const as = (tenant: string) => ({ "x-tenant-id": tenant });
const calc = { key: "calc", config: { transport: "stdio", command: process.execPath, args: [MCP_FIXTURE, "stdio"], timeout: 5000, retry_attempts: 1 }, selected_tools: ["add"] };

/** Every key in `value` with an uppercase letter, by path; what the user or a server gave (free-form) is not looked into. */
function camelKeys(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => camelKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(/[A-Z]/.test(key) ? [`${path}.${key}`] : []),
    ...(key === "input_schema" ? [] : camelKeys(inner, `${path}.${key}`)),
  ]);
}

describe.each(["memory", "postgresql"])("registry API shape on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const { post, get } = useGateway(async () => {}, storeEnv);
  const json = async (answer: Promise<{ statusCode: number; json: () => unknown }>, status = 200) => {
    const { statusCode, json: body } = await answer;
    expect(statusCode, JSON.stringify(body())).toBe(status);
    return body() as Record<string, unknown>;
  };

  /** The ids of every page of `url` (`limit` each), checking each page's shape. */
  const walk = async (url: string, items: string, idOf: (item: Record<string, unknown>) => string, limit: number, tenant: string) => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await json(get(`${url}?limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, as(tenant)));
      expect(Object.keys(page).sort()).toEqual([items, "has_more", "next_cursor"].sort());
      const listed = page[items] as Record<string, unknown>[];
      expect(listed.length).toBeLessThanOrEqual(limit);
      ids.push(...listed.map(idOf));
      cursor = page.next_cursor as string | null;
      expect(page.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor !== null);
    return { ids, pages };
  };

  it("answers snake_case on every registry route, free-form values as given", async () => {
    const tenant = "shape";
    const answers = [
      await json(post("/api/model-providers", { id: "local", kind: "openai", base_url: "https://llm.example.test/v1", models: ["m"], api_key: "sk-provider" }, as(tenant)), 201),
      await json(get("/api/model-providers/local", as(tenant))),
      await json(get("/api/model-providers", as(tenant))),
      await json(
        post("/api/assistants", { id: "a", name: "A", model: { provider: "openai", base_url: "https://llm.example.test/v1", api_key: "sk-assistant" }, system_prompt: "Be brief." }, as(tenant)),
        201,
      ),
      await json(get("/api/assistants/a", as(tenant))),
      await json(get("/api/assistants", as(tenant))),
      await json(post("/api/mcp-configs", calc, as(tenant)), 201),
      await json(post("/api/mcp-configs", { key: "remote", config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer x" } } }, as(tenant)), 201),
      await json(post("/api/mcp-configs/calc/connect", {}, as(tenant))),
      await json(get("/api/mcp-configs", as(tenant))),
      await json(get("/api/mcp-configs/calc/tools", as(tenant))),
      await json(get("/api/plugins", as(tenant))),
    ];
    expect(answers.flatMap((answer) => camelKeys(answer))).toEqual([]);

    const [provider, , , assistant, , , created, remote] = answers;
    expect(provider).toMatchObject({ tenant_id: tenant, base_url: "https://llm.example.test/v1", has_api_key: true, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(assistant).toMatchObject({ tenant_id: tenant, system_prompt: "Be brief.", model: { provider: "openai", base_url: "https://llm.example.test/v1", api_key: "***" } });
    expect(created).toMatchObject({ tenant_id: tenant, selected_tools: ["add"], config: { retry_attempts: 1 }, status: "disconnected" });
    expect(remote).toMatchObject({ config: { header_names: ["Authorization"] } });
    const [add] = (answers[10] as { tools: Record<string, unknown>[] }).tools;
    // The tool's JSON Schema is the server's, camelCase keys and all where it has them.
    expect(add).toMatchObject({ name: "add", full_name: "calc__add", selected: true, input_schema: expect.objectContaining({ type: "object" }) });
    expect((answers[11] as { plugins: unknown[] }).plugins).toContainEqual(expect.objectContaining({ name: "calc__add", source: "mcp", server_key: "calc" }));
    await post("/api/mcp-configs/calc/disconnect", {}, as(tenant));
  });

  it("refuses the camelCase request fields of before", async () => {
    const tenant = "old-fields";
    for (const [url, body] of [
      ["/api/assistants", { name: "A", systemPrompt: "x" }],
      ["/api/assistants", { name: "A", model: { provider: "openai", apiKey: "sk" } }],
      ["/api/model-providers", { id: "p", kind: "openai", baseUrl: "https://llm.example.test/v1" }],
      ["/api/mcp-configs", { key: "k", config: { transport: "http", url: "https://mcp.example/mcp" }, selectedTools: [] }],
    ] as const) {
      expect(await json(post(url, body, as(tenant)), 400)).toMatchObject({ success: false, code: "INVALID_REQUEST" });
    }
  });

  it("walks every registry list in pages: every item once, in order, the last without a cursor", async () => {
    const tenant = "pages";
    // Ids descending, created ascending: the list's order is creation, not the ids'.
    const names = ["e", "d", "c", "b", "a"];
    for (const id of names) {
      await json(post("/api/assistants", { id, name: id }, as(tenant)), 201);
      await json(post("/api/model-providers", { id: `p-${id}`, kind: "scripted" }, as(tenant)), 201);
      await json(post("/api/mcp-configs", { key: `s-${id}`, config: { transport: "http", url: "https://mcp.example/mcp" } }, as(tenant)), 201);
    }
    const byId = (item: Record<string, unknown>) => item.id as string;
    expect(await walk("/api/assistants", "assistants", byId, 2, tenant)).toEqual({ ids: names, pages: 3 });
    expect(await walk("/api/model-providers", "providers", byId, 2, tenant)).toEqual({ ids: names.map((id) => `p-${id}`), pages: 3 });
    expect(await walk("/api/mcp-configs", "configs", (item) => item.key as string, 2, tenant)).toEqual({ ids: names.map((id) => `s-${id}`), pages: 3 });

    await json(post("/api/mcp-configs", calc, as(tenant)), 201);
    await json(post("/api/mcp-configs/calc/connect", {}, as(tenant)));
    const byName = (item: Record<string, unknown>) => item.name as string;
    expect(await walk("/api/mcp-configs/calc/tools", "tools", byName, 3, tenant)).toEqual({ ids: ["add", "crash", "env", "hang"], pages: 2 });
    expect(await json(get("/api/mcp-configs/calc/tools?cursor=garbage", as(tenant)), 400)).toMatchObject({ code: "INVALID_CURSOR" });
    const plugins = await walk("/api/plugins", "plugins", byName, 2, tenant);
    expect(plugins.ids).toEqual(["clock", "echo", "memory_read", "calc__add"]);
    expect(plugins.pages).toBe(2);
    await post("/api/mcp-configs/calc/disconnect", {}, as(tenant));
  });

  it.each(["/api/assistants", "/api/model-providers", "/api/mcp-configs", "/api/plugins"])("refuses a cursor no page of %s returned, and a limit out of 1..1000", async (url) => {
    const tenant = "bad-pages";
    expect(await json(get(`${url}?cursor=garbage`, as(tenant)), 400)).toMatchObject({ success: false, code: "INVALID_CURSOR" });
    for (const limit of ["0", "1001", "x"]) expect(await json(get(`${url}?limit=${limit}`, as(tenant)), 400)).toMatchObject({ success: false, code: "INVALID_REQUEST" });
  });
});
