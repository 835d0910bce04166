import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

// POST /threads/{id}/copy on both stores: the checkpointers keep a checkpoint's values differently
// (inline in memory, as blobs per channel version in PostgreSQL), and a copy must read the same on each.
describe.each(["memory", "postgresql"])("LangGraph API: thread copy on %s stores", (stores) => {
  const headers = { "x-tenant-id": "lg-copy" };
  const gateway = useGateway(
    async ({ post }) => {
      expect((await post("/assistants", { assistant_id: "copier", graph_id: "react" }, headers)).statusCode).toBe(200);
    },
    useStoreEnv(stores),
  );
  const post = (url: string, body: unknown, as = headers) => gateway.post(url, body, as);
  /** A POST without a body, as the SDK sends a copy. */
  const copyOf = (thread: string, as = headers) => gateway.app.inject({ method: "POST", url: `/threads/${thread}/copy`, headers: as });
  const contents = (state: { values: { messages?: Array<{ content: string }> } }) => state.values.messages?.map((message) => message.content);

  it("copies the metadata, state and checkpoint history into a new thread that then goes its own way", async () => {
    const original = (await post("/threads", { metadata: { user: "ann" } })).json().thread_id;
    await post(`/threads/${original}/runs/wait`, { assistant_id: "copier", input: { messages: [{ role: "user", content: "one" }] } });
    await post(`/threads/${original}/runs/wait`, { assistant_id: "copier", input: { messages: [{ role: "user", content: "/interrupt two?" }] } });

    const copied = await copyOf(original);
    expect(copied.statusCode).toBe(200);
    const copy = copied.json();
    expect(copy.thread_id).not.toBe(original);
    expect(copy).toMatchObject({ metadata: { user: "ann", thread_id: copy.thread_id }, status: "interrupted" });
    const [state, copyState] = [(await gateway.get(`/threads/${original}/state`, headers)).json(), (await gateway.get(`/threads/${copy.thread_id}/state`, headers)).json()];
    expect(copyState.values).toEqual(state.values);
    expect(copyState.next).toEqual(state.next);
    expect(copyState.checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    const history = async (thread: string) =>
      (await post(`/threads/${thread}/history`, { limit: 100 })).json().map((entry: { checkpoint: { checkpoint_id: string }; values: object }) => [entry.checkpoint.checkpoint_id, entry.values]);
    expect(await history(copy.thread_id)).toEqual(await history(original));

    // The copy answers the interrupt on its own; the original still waits.
    await post(`/threads/${copy.thread_id}/runs/wait`, { assistant_id: "copier", command: { resume: "yes" } });
    expect((await gateway.get(`/threads/${copy.thread_id}`, headers)).json().status).toBe("idle");
    expect((await gateway.get(`/threads/${original}`, headers)).json().status).toBe("interrupted");
    expect(contents((await gateway.get(`/threads/${original}/state`, headers)).json())).toEqual(contents(state));
  });

  it("answers 404 for a missing thread or another tenant's", async () => {
    const thread = (await post("/threads", {})).json().thread_id;
    expect((await copyOf(thread, { "x-tenant-id": "lg-copy-other" })).json()).toEqual({ detail: `Thread ${thread} not found`, code: "NOT_FOUND" });
    expect((await copyOf("missing")).statusCode).toBe(404);
  });
});
