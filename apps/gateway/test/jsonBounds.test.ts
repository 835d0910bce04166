import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, nestedObject, objectOfJsonBytes } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

const outOfBounds: Array<[string, Record<string, unknown>]> = [
  ["nested 4,100 levels deep", nestedObject(4_100)],
  [`nested ${JSON_DEPTH_BOUND + 1} levels deep`, nestedObject(JSON_DEPTH_BOUND + 1)],
  [`over ${JSON_BYTES_BOUND} bytes`, objectOfJsonBytes(JSON_BYTES_BOUND + 1)],
];

/** The 400 naming the field and the bound it broke. */
const boundsError = (field: string) => ({
  success: false,
  code: "INVALID_REQUEST",
  error: expect.stringMatching(new RegExp(`${field.replaceAll(".", "\\.")}: must not (nest objects and arrays deeper than 32 levels|exceed 65536 bytes as JSON)$`)),
});

describe("free-form JSON in requests is bounded: refused with 400, nothing stored", () => {
  const { post, get } = useGateway(async ({ post }) => {
    await post("/api/assistants", { id: "echo", name: "Echo" });
    await post("/api/threads", { thread_id: "t1", assistant_id: "echo" });
  });

  const threadIds = async () => {
    const list = await get("/api/threads?limit=1000");
    expect(list.statusCode).toBe(200);
    return list.json<{ threads: Array<{ id: string }> }>().threads.map((thread) => thread.id);
  };

  it.each(outOfBounds)("thread metadata %s", async (_label, metadata) => {
    const response = await post("/api/threads", { thread_id: "bad-metadata", assistant_id: "echo", metadata });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(boundsError("metadata"));
    expect(await threadIds()).not.toContain("bad-metadata");
    expect((await get("/api/threads/bad-metadata")).statusCode).toBe(404);
  });

  it.each([
    ["nested exactly as deep as allowed", "deep-enough", nestedObject(JSON_DEPTH_BOUND)],
    ["exactly as large as allowed", "large-enough", objectOfJsonBytes(JSON_BYTES_BOUND)],
  ])("accepts thread metadata %s", async (_label, id, metadata) => {
    expect((await post("/api/threads", { thread_id: id, assistant_id: "echo", metadata })).statusCode).toBe(201);
    expect(await threadIds()).toContain(id);
  });

  it.each(outOfBounds)("a run's resume value %s", async (_label, resume) => {
    const response = await post("/api/runs", { assistant_id: "echo", thread_id: "t1", command: { resume }, mode: "queue" });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(boundsError("command.resume"));
    expect((await get("/api/threads/t1/queue")).json()).toMatchObject({ size: 0 });
    expect((await get("/api/threads/t1/runs")).json()).toEqual({ runs: [], next_cursor: null, has_more: false });
  });

  it.each(outOfBounds)("a schedule's payload %s", async (_label, payload) => {
    const response = await post("/api/schedules", { task_type: "agent-message", delay_ms: 60_000, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(boundsError("payload"));
    expect((await get("/api/schedules")).json()).toEqual({ schedules: [], next_cursor: null, has_more: false });
  });
});
