import { describe, expect, it } from "vitest";
import { expiredToken, tokenFor } from "../harness/auth";
import { call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { ASSISTANT } from "../harness/workloads";

const A = { "x-tenant-id": "tenant-a" };
const B = { "x-tenant-id": "tenant-b" };
const thread = { assistant_id: ASSISTANT, thread_id: "a-thread" };

describe("scenario 13: tenant isolation across replicas, authentication on", () => {
  const cluster = useCluster();

  it("tenant B cannot read, run, stream, abort, recover or reschedule tenant A's work, nor reach its rooms, on any replica", async () => {
    const replicas = await cluster.start(2);
    const [home, other] = replicas.map((replica) => replica.url);

    // Tenant A's thread, a finished run and a schedule, all created on the first replica.
    await expectOk(call(home, "POST", "/api/assistants", { id: ASSISTANT, name: "Echo" }, A), 201);
    await expectOk(call(home, "POST", "/api/threads", { ...thread }, A), 201);
    await expectOk(call(home, "POST", "/api/runs", { ...thread, message: "secret of A", message_id: "a-msg", mode: "wait" }, A));
    const { id: scheduleId } = await expectOk<{ id: string }>(
      call(home, "POST", "/api/schedules", { task_type: "agent-message", delay_ms: 3_600_000, payload: { assistant_id: ASSISTANT, thread_id: "a-thread", message: "later" } }, A),
      201,
    );

    await expectOk(call(home, "POST", "/api/projects", { id: "a-project", name: "secret of A" }, A), 201);
    await expectOk(call(home, "POST", "/api/projects/a-project/rooms", { id: "a-room", name: "secret of A" }, A), 201);
    await expectOk(call(home, "POST", "/api/projects/a-project/rooms/a-room/messages", { content: "secret of A" }, A), 201);

    const attempts: Array<[string, string, unknown?]> = [
      ["GET", "/api/threads/a-thread"],
      ["GET", "/api/threads/a-thread/state"],
      ["GET", "/api/threads/a-thread/queue"],
      ["GET", "/api/threads/a-thread/runs"],
      ["DELETE", "/api/threads/a-thread"],
      ["POST", "/api/runs", { ...thread, message: "let me in", mode: "queue" }],
      ["POST", "/api/runs/resume_stream", { ...thread, message_id: "a-msg" }],
      ["POST", "/api/runs/abort", thread],
      ["POST", "/api/runs/recover", thread],
      ["GET", `/api/schedules/${scheduleId}`],
      ["POST", `/api/schedules/${scheduleId}/pause`],
      ["DELETE", `/api/schedules/${scheduleId}`],
      ["GET", "/api/projects/a-project/rooms"],
      ["POST", "/api/projects/a-project/rooms", { id: "b-room", name: "B's" }],
      ["POST", "/api/projects/a-project/rooms/a-room/messages", { content: "let me in" }],
      ["GET", "/api/projects/a-project/rooms/a-room/messages"],
      ["GET", "/api/projects/a-project/rooms/a-room/events"],
    ];
    for (const url of [home, other]) {
      for (const [method, path, body] of attempts) {
        const response = await call(url, method, path, body, B);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
        expect(response.text).not.toContain("secret of A");
      }
      for (const [path, key] of [["/api/threads", "threads"], ["/api/schedules", "schedules"]]) {
        const listed = await expectOk<Record<string, Array<{ id: string }>>>(call(url, "GET", path, undefined, B));
        expect(listed[key].map((record) => record.id)).not.toContain(key === "threads" ? "a-thread" : scheduleId);
      }

      // Without a valid token of A, nothing of A is served either.
      const refused: Array<[Record<string, string>, number, string]> = [
        [{ authorization: "" }, 401, "UNAUTHENTICATED"],
        [{ authorization: `Bearer ${await expiredToken("tenant-a")}` }, 401, "TOKEN_EXPIRED"],
        [{ authorization: `Bearer ${await tokenFor("tenant-a")}`, ...B }, 403, "TENANT_MISMATCH"],
      ];
      for (const [headers, status, code] of refused) {
        const response = await call(url, "GET", "/api/threads/a-thread/state", undefined, headers);
        expect({ status: response.status, code: response.json<{ code: string }>().code }).toEqual({ status, code });
      }
    }

    // A's work is intact, and A sees it from either replica.
    const state = await expectOk<{ messages: Array<{ content: string }> }>(call(other, "GET", "/api/threads/a-thread/state", undefined, A));
    expect(state.messages.map((message) => message.content)).toEqual(["secret of A", "echo: secret of A"]);
    expect((await expectOk<{ status: string }>(call(other, "GET", `/api/schedules/${scheduleId}`, undefined, A))).status).toBe("pending");
  });
});
