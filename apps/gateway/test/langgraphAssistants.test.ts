import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// The LangGraph API's assistants through HTTP, every answer checked against the OpenAPI document.
// The SDK-driven conformance suite (e2e/scenarios/24-langgraph-sdk.test.ts) covers the same routes
// through @langchain/langgraph-sdk; this file pins the shapes and the refusals.
const gateway = useGateway();
const tenant = (name: string) => ({ "x-tenant-id": name });

describe("LangGraph API: assistants", () => {
  it("creates an assistant whose context carries the graph's settings, and reads it in both dialects", async () => {
    const created = await gateway.post(
      "/assistants",
      {
        assistant_id: "lg-a1",
        graph_id: "react",
        name: "Helper",
        description: "answers",
        metadata: { team: "eu" },
        config: { tags: ["x"] },
        context: { model: { provider: "scripted", apiKey: "sk-secret" }, tools: ["echo"], system_prompt: "Be brief.", tone: "dry" },
      },
      tenant("lg-assistants"),
    );
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({
      assistant_id: "lg-a1",
      graph_id: "react",
      name: "Helper",
      description: "answers",
      version: 1,
      metadata: { team: "eu" },
      config: { tags: ["x"] },
      context: { model: { provider: "scripted", apiKey: "***" }, tools: ["echo"], system_prompt: "Be brief.", tone: "dry" },
    });
    // The same assistant, as /api shows it: its settings are the assistant's own.
    const plain = await gateway.get("/api/assistants/lg-a1", tenant("lg-assistants"));
    expect(plain.json()).toMatchObject({ id: "lg-a1", model: { provider: "scripted", api_key: "***" }, tools: ["echo"], system_prompt: "Be brief." });
    expect(plain.json()).not.toHaveProperty("metadata");
  });

  it("answers if_exists: 409 with raise, the existing assistant with do_nothing", async () => {
    const headers = tenant("lg-exists");
    expect((await gateway.post("/assistants", { assistant_id: "dup", graph_id: "react", name: "First" }, headers)).statusCode).toBe(200);
    const raised = await gateway.post("/assistants", { assistant_id: "dup", graph_id: "react", name: "Second" }, headers);
    expect(raised.statusCode).toBe(409);
    expect(raised.json()).toEqual({ detail: expect.stringContaining("dup"), code: "ALREADY_EXISTS" });
    const kept = await gateway.post("/assistants", { assistant_id: "dup", graph_id: "react", name: "Second", if_exists: "do_nothing" }, headers);
    expect(kept.json()).toMatchObject({ assistant_id: "dup", name: "First" });
  });

  it("patches: metadata merged, context replaced, version up by one", async () => {
    const headers = tenant("lg-patch");
    await gateway.post("/assistants", { assistant_id: "p", graph_id: "react", metadata: { a: 1 }, context: { tools: ["echo"], system_prompt: "x" } }, headers);
    const patched = await gateway.app.inject({
      method: "PATCH",
      url: "/assistants/p",
      headers: { ...headers, "content-type": "application/json" },
      payload: { metadata: { b: 2 }, context: { tools: ["clock"] }, name: "Renamed" },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: "Renamed", version: 2, metadata: { a: 1, b: 2 }, context: { model: { provider: "scripted" }, tools: ["clock"] } });
    expect(patched.json().context).not.toHaveProperty("system_prompt");
  });

  it("searches by graph, name and metadata, sorted and paged with LangGraph's headers; counts", async () => {
    const headers = tenant("lg-search");
    for (const [id, name, team] of [["s1", "Alpha", "eu"], ["s2", "Beta", "us"], ["s3", "alphabet", "eu"]]) {
      await gateway.post("/assistants", { assistant_id: id, graph_id: "react", name, metadata: { team } }, headers);
    }
    const page = await gateway.post("/assistants/search", { name: "ALPHA", sort_by: "name", sort_order: "asc", limit: 1 }, headers);
    expect(page.json().map((assistant: { assistant_id: string }) => assistant.assistant_id)).toEqual(["s1"]);
    expect(page.headers["x-pagination-next"]).toBe("1");
    expect(page.headers["x-pagination-total"]).toBe("2");
    const selected = await gateway.post("/assistants/search", { metadata: { team: "eu" }, select: ["assistant_id", "name"], sort_by: "assistant_id", sort_order: "asc" }, headers);
    expect(selected.json()).toEqual([{ assistant_id: "s1", name: "Alpha" }, { assistant_id: "s3", name: "alphabet" }]);
    expect((await gateway.post("/assistants/count", { graph_id: "react", metadata: { team: "eu" } }, headers)).json()).toBe(2);
    // A new tenant has only the ReAct graph's default assistant, as LangGraph Platform makes one per graph.
    expect((await gateway.post("/assistants/count", {}, tenant("lg-nobody"))).json()).toBe(1);
  });

  it("serves the graph's drawing and schemas", async () => {
    const headers = tenant("lg-graph");
    await gateway.post("/assistants", { assistant_id: "g", graph_id: "react" }, headers);
    const drawing = (await gateway.get("/assistants/g/graph", headers)).json();
    expect(drawing.nodes.map((node: { id: string }) => node.id)).toEqual(["__start__", "agent", "tools", "__end__"]);
    const schemas = (await gateway.get("/assistants/g/schemas", headers)).json();
    expect(schemas).toMatchObject({ graph_id: "react", context_schema: { properties: { model: expect.any(Object), tools: expect.any(Object) } } });
  });

  it("refuses bad input with 422 and {detail, code}, writing nothing; another tenant's assistant is not found", async () => {
    const headers = tenant("lg-refusals");
    const refusals: Array<[unknown, number, string]> = [
      [{ graph_id: 5 }, 422, "INVALID_REQUEST"],
      [{ graph_id: "react", surprise: true }, 422, "INVALID_REQUEST"],
      [{ graph_id: "planner" }, 404, "NOT_FOUND"],
      [{ graph_id: "react", context: { tools: ["no-such-tool"] } }, 400, "UNKNOWN_TOOL"],
      [{ graph_id: "react", context: { model: { provider: "nowhere" } } }, 400, "UNKNOWN_MODEL_PROVIDER"],
      [{ graph_id: "react", assistant_id: "bad id" }, 422, "INVALID_REQUEST"],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await gateway.post("/assistants", body, headers);
      expect([answer.statusCode, answer.json().code], JSON.stringify(body)).toEqual([status, code]);
      expect(answer.json().detail).toEqual(expect.any(String));
    }
    // None written: the tenant has its default assistant alone.
    expect((await gateway.post("/assistants/count", {}, headers)).json()).toBe(1);

    await gateway.post("/assistants", { assistant_id: "mine", graph_id: "react" }, tenant("lg-owner"));
    for (const answer of [
      await gateway.get("/assistants/mine", headers),
      await gateway.del("/assistants/mine", headers),
      await gateway.get("/assistants/mine/graph", headers),
    ]) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual({ detail: "Assistant mine not found", code: "NOT_FOUND" });
    }
    expect((await gateway.del("/assistants/mine", tenant("lg-owner"))).statusCode).toBe(204);
  });
});
