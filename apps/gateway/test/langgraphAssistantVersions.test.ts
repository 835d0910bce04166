import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

// Assistant versions through HTTP (every answer checked against the OpenAPI document): each create
// and update, in either dialect, is a version; one can be made current again, and runs use it.
const gateway = useGateway();
const tenant = (name: string) => ({ "x-tenant-id": name });

describe("LangGraph API: assistant versions", () => {
  const patch = (url: string, payload: unknown, headers: Record<string, string>) =>
    gateway.app.inject({ method: "PATCH", url, headers: { ...headers, "content-type": "application/json" }, payload: JSON.stringify(payload) });

  it("lists a version per create and update (both dialects), newest first, by metadata, paged", async () => {
    const headers = tenant("lg-versions");
    await gateway.post(
      "/assistants",
      { assistant_id: "v", graph_id: "react", name: "First", metadata: { stage: "draft" }, config: { tags: ["a"] }, context: { model: { provider: "scripted", apiKey: "sk-v1" }, tools: ["echo"], tone: "dry" } },
      headers,
    );
    expect((await patch("/assistants/v", { name: "Second", metadata: { stage: "review" } }, headers)).json()).toMatchObject({ version: 2 });
    // The /api dialect changes the same assistant: its update is a version too.
    expect((await patch("/api/assistants/v", { system_prompt: "Be brief." }, headers)).statusCode).toBe(200);
    expect((await gateway.get("/assistants/v", headers)).json()).toMatchObject({ version: 3, context: { system_prompt: "Be brief." } });

    const versions = await gateway.post("/assistants/v/versions", {}, headers);
    expect(versions.statusCode).toBe(200);
    expect(versions.json().map((version: { version: number }) => version.version)).toEqual([3, 2, 1]);
    expect(versions.json()[2]).toEqual({
      assistant_id: "v",
      graph_id: "react",
      name: "First",
      description: null,
      metadata: { stage: "draft" },
      config: { tags: ["a"] },
      context: { model: { provider: "scripted", apiKey: "***" }, tools: ["echo"], tone: "dry" },
      version: 1,
      created_at: expect.any(String),
    });
    const pick = async (body: unknown) => (await gateway.post("/assistants/v/versions", body, headers)).json().map((version: { version: number }) => version.version);
    expect(await pick({ metadata: { stage: "review" } })).toEqual([3, 2]);
    expect(await pick({ metadata: { stage: "never" } })).toEqual([]);
    expect(await pick({ limit: 1, offset: 1 })).toEqual([2]);
  });

  it("makes a version current: the assistant's fields become that version's, later updates number past the highest, runs use it", async () => {
    const headers = tenant("lg-latest");
    const first = (await gateway.post("/assistants", { assistant_id: "l", graph_id: "react", name: "Tools", metadata: { n: 1 }, context: { tools: ["echo"] } }, headers)).json();
    await patch("/assistants/l", { name: "No tools", metadata: { n: 2 }, context: { tools: [], system_prompt: "None." }, description: "bare" }, headers);

    const toolAnswer = async () => {
      const run = await gateway.post("/runs/wait", { assistant_id: "l", input: { messages: [{ role: "user", content: '/tool echo {"text":"ping"}' }] } }, headers);
      expect(run.statusCode).toBe(200);
      return run.json().messages.find((message: { type: string }) => message.type === "tool").content as string;
    };
    expect(await toolAnswer()).not.toBe("ping");

    const restored = await gateway.post("/assistants/l/latest", { version: 1 }, headers);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({ ...first, updated_at: expect.any(String) });
    expect((await gateway.get("/assistants/l", headers)).json()).toEqual(restored.json());
    expect(await toolAnswer()).toBe("ping");

    expect((await patch("/assistants/l", { name: "Third" }, headers)).json()).toMatchObject({ name: "Third", version: 3, metadata: { n: 1 }, context: { tools: ["echo"] } });
    const versions = (await gateway.post("/assistants/l/versions", {}, headers)).json();
    expect(versions.map((version: { version: number }) => version.version)).toEqual([3, 2, 1]);
  });

  it("refuses a missing assistant or version with 404, bad bodies with 422, and another tenant's assistant as missing", async () => {
    const headers = tenant("lg-version-refusals");
    await gateway.post("/assistants", { assistant_id: "r", graph_id: "react", name: "Kept" }, headers);
    const refusals: Array<[string, unknown, number, string, string?]> = [
      ["/assistants/missing/versions", {}, 404, "NOT_FOUND", "Assistant missing not found"],
      ["/assistants/missing/latest", { version: 1 }, 404, "NOT_FOUND", "Assistant missing not found"],
      ["/assistants/r/latest", { version: 2 }, 404, "NOT_FOUND", "Assistant r has no version 2"],
      ["/assistants/r/latest", { version: 0 }, 422, "INVALID_REQUEST"],
      ["/assistants/r/latest", {}, 422, "INVALID_REQUEST"],
      ["/assistants/r/versions", { limit: 0 }, 422, "INVALID_REQUEST"],
      ["/assistants/r/versions", { limit: 1001 }, 422, "INVALID_REQUEST"],
      ["/assistants/r/versions", { offset: -1 }, 422, "INVALID_REQUEST"],
      ["/assistants/r/versions", { metadata: [] }, 422, "INVALID_REQUEST"],
      ["/assistants/r/versions", { surprise: true }, 422, "INVALID_REQUEST"],
    ];
    for (const [url, body, status, code, detail] of refusals) {
      const answer = await gateway.post(url, body, headers);
      expect([answer.statusCode, answer.json().code], `${url} ${JSON.stringify(body)}`).toEqual([status, code]);
      expect(answer.json().detail).toEqual(detail ?? expect.any(String));
    }
    for (const [url, body] of [["/assistants/r/versions", {}], ["/assistants/r/latest", { version: 1 }]] as const) {
      const foreign = await gateway.post(url, body, tenant("lg-version-stranger"));
      expect([foreign.statusCode, foreign.json()]).toEqual([404, { detail: "Assistant r not found", code: "NOT_FOUND" }]);
    }
    expect((await gateway.get("/assistants/r", headers)).json()).toMatchObject({ name: "Kept", version: 1 });
  });
});
