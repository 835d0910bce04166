import { eventually, parseSse } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

describe("client-chosen message ids are per tenant", () => {
  const tenantA = { "x-tenant-id": "tenant-a" };
  const tenantB = { "x-tenant-id": "tenant-b" };
  // Both tenants name their assistant and thread alike too: every id the client chooses coincides.
  const gateway = useGateway(async ({ post }) => {
    for (const tenant of [tenantA, tenantB]) {
      expect((await post("/api/assistants", { id: "echo", name: "Echo" }, tenant)).statusCode).toBe(201);
      expect((await post("/api/threads", { thread_id: "t1", assistant_id: "echo" }, tenant)).statusCode).toBe(201);
    }
  });
  const { post, get } = gateway;
  const thread = { assistant_id: "echo", thread_id: "t1" };
  const queueRun = (message: string, tenant: Record<string, string>) => post("/api/runs", { ...thread, message, message_id: "msg-a1", mode: "queue" }, tenant);

  it("answers 202 to tenant B posting tenant A's message_id, 409 only to A again; each sees only its own run", async () => {
    expect((await queueRun("from a", tenantA)).statusCode).toBe(202);
    const reused = await queueRun("from b", tenantB);
    expect(reused.statusCode).toBe(202);
    expect(reused.json()).toEqual({ message_id: "msg-a1", queued: true });
    const again = await queueRun("from a again", tenantA);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ success: false, code: "DUPLICATE_MESSAGE" });

    for (const [tenant, text] of [[tenantA, "from a"], [tenantB, "from b"]] as const) {
      const runs = async () => (await get("/api/threads/t1/runs", tenant)).json<{ runs: Array<{ message_id: string; status: string }> }>().runs;
      await eventually(`${tenant["x-tenant-id"]}'s run`, async () => (await runs()).length > 0);
      expect(await runs()).toEqual([expect.objectContaining({ message_id: "msg-a1", status: "success" })]);
      const { messages } = (await get("/api/threads/t1/state", tenant)).json<{ messages: Array<{ content: string }> }>();
      expect(messages.map((message) => message.content)).toEqual([text, `echo: ${text}`]);
      // The stream of msg-a1 replays this tenant's answer, not the other's.
      const replay = parseSse((await post("/api/runs/resume_stream", { ...thread, message_id: "msg-a1" }, tenant)).body);
      const answer = replay.filter((event) => event.type === "message_chunk").map((event) => (event.data as { content: string }).content);
      expect(answer.join("")).toBe(`echo: ${text}`);
    }
  });
});
