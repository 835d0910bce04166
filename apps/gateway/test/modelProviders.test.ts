// The model provider catalog API on both store kinds: CRUD, the key write-only, bad URLs and kinds
// refused without a write, built-in names reserved, other tenants out of reach.
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const OTHER_TENANT = { "x-tenant-id": "tenant-other" };
const KEY = "sk-route-secret-0123456789";

describe.each(["memory", "postgresql"])("model providers on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  const gateway = useGateway(async () => {}, storeEnv);
  const { post, get, del } = gateway;
  const patch = (url: string, payload: unknown) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });

  it("creates, reads, lists, changes and deletes a provider, never answering its key", async () => {
    const created = await post("/api/model-providers", { id: "local-llm", kind: "openai", base_url: "http://127.0.0.1:9/v1", models: ["m1"], api_key: KEY });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ id: "local-llm", tenant_id: "default", kind: "openai", base_url: "http://127.0.0.1:9/v1", models: ["m1"], has_api_key: true });
    const read = await get("/api/model-providers/local-llm");
    const listed = await get("/api/model-providers");
    expect(listed.json().providers.map((provider: { id: string }) => provider.id)).toContain("local-llm");
    const changed = await patch("/api/model-providers/local-llm", { models: ["m1", "m2"], api_key: null });
    expect(changed.json()).toMatchObject({ models: ["m1", "m2"], has_api_key: false });
    for (const answer of [created, read, listed, changed]) expect(answer.body).not.toContain(KEY);
    expect((await del("/api/model-providers/local-llm")).statusCode).toBe(204);
    expect((await get("/api/model-providers/local-llm")).json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await del("/api/model-providers/local-llm")).statusCode).toBe(404);
  });

  it.each([
    ["a javascript: URL", { base_url: "javascript:alert(1)" }],
    ["a file: URL", { base_url: "file:///etc/passwd" }],
    ["an unknown kind", { kind: "mystery" }],
    ["an empty key", { api_key: "" }],
    ["an unknown field", { secret: "x" }],
  ])("refuses %s with 400 INVALID_REQUEST and writes nothing", async (_what, change) => {
    const answer = await post("/api/model-providers", { id: "refused", kind: "openai", ...change });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ success: false, code: "INVALID_REQUEST" });
    expect((await get("/api/model-providers/refused")).statusCode).toBe(404);
  });

  it("refuses a PATCH to a non-http base URL and keeps the provider as it was", async () => {
    await post("/api/model-providers", { id: "kept", kind: "openai", base_url: "https://llm.example.test/v1" });
    expect((await patch("/api/model-providers/kept", { base_url: "file:///etc/passwd" })).statusCode).toBe(400);
    expect((await get("/api/model-providers/kept")).json().base_url).toBe("https://llm.example.test/v1");
  });

  it("refuses to point a stored key at a new base URL with 400 SECRETS_REQUIRED, unless the key is given again", async () => {
    await post("/api/model-providers", { id: "keyed", kind: "openai", base_url: "https://llm.example.test/v1", api_key: KEY });
    const moved = await patch("/api/model-providers/keyed", { base_url: "https://attacker.example.test/v1" });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toMatchObject({ code: "SECRETS_REQUIRED", error: expect.stringContaining("API key") });
    expect((await get("/api/model-providers/keyed")).json()).toMatchObject({ base_url: "https://llm.example.test/v1", has_api_key: true });
    expect((await patch("/api/model-providers/keyed", { base_url: "https://other.example.test/v1", api_key: "sk-other" })).statusCode).toBe(200);
  });

  it("reserves the built-in provider names and refuses a duplicate id with 409", async () => {
    for (const id of ["openai", "scripted"]) {
      const answer = await post("/api/model-providers", { id, kind: "openai" });
      expect(answer.statusCode).toBe(409);
      expect(answer.json()).toMatchObject({ code: "ALREADY_EXISTS" });
    }
    await post("/api/model-providers", { id: "twice", kind: "scripted" });
    expect((await post("/api/model-providers", { id: "twice", kind: "scripted" })).json()).toMatchObject({ code: "ALREADY_EXISTS" });
  });

  it("keeps another tenant's providers out of reach", async () => {
    await post("/api/model-providers", { id: "mine", kind: "openai", api_key: KEY });
    expect((await get("/api/model-providers/mine", OTHER_TENANT)).statusCode).toBe(404);
    expect((await get("/api/model-providers", OTHER_TENANT)).json()).toEqual({ providers: [], next_cursor: null, has_more: false });
    expect((await del("/api/model-providers/mine", OTHER_TENANT)).statusCode).toBe(404);
  });
});
