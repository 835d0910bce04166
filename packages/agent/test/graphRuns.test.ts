import { InMemoryRunEventLog } from "@axiom-lattice/core";
import { describe, expect, it } from "vitest";
import { type StreamChunk, ThreadBusyError } from "../src";
import { ASSISTANT, TENANT, collect, manager, useSharedStores } from "./support";

const stores = useSharedStores();

/** A thread the LangGraph API created: tied to no assistant, each run names its own. */
const unboundThread = (threadId: string) => ({ tenantId: TENANT, assistantId: "*", threadId });

const graphEvents = (chunks: StreamChunk[]) =>
  chunks.filter((chunk) => chunk.type === "graph_event").map((chunk) => chunk.data as { event: string; data: unknown });

describe("runs queued with LangGraph input and stream modes", () => {
  it("add the input messages as given, run the assistant the message names, and emit the asked modes in order", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-1"));
    const { messageId, stream } = await agent.addMessage(
      { input: { messages: [{ role: "user", content: "hello there", id: "client-chosen" }] } },
      { mode: "stream", assistantId: ASSISTANT, streamModes: ["values", "updates", "messages-tuple"] },
    );
    const chunks = await collect(stream);
    const events = graphEvents(chunks);

    expect(events.map((event) => event.event)).toEqual(["values", "messages", "messages", "messages", "updates", "values"]);
    // Values as clients read them: message dicts, no bookkeeping channel.
    expect(events[0].data).toEqual({ messages: [expect.objectContaining({ type: "human", content: "hello there", id: "client-chosen" })] });
    const [token, metadata] = events[1].data as [Record<string, unknown>, Record<string, unknown>];
    expect(token).toMatchObject({ type: "ai", content: "echo:" });
    // The client's thread id, not the checkpointer's tenant-qualified one.
    expect(metadata).toMatchObject({ thread_id: "lg-1", run_id: messageId, langgraph_node: "agent" });
    expect(events[4].data).toEqual({ agent: { messages: [expect.objectContaining({ type: "ai", content: "echo: hello there" })] } });
    expect((events[5].data as { messages: unknown[] }).messages).toHaveLength(2);
    // The run's own chunks are still there, for the /api dialect.
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
  });

  it("emit nothing of LangGraph's without stream modes (the /api dialect's runs are unchanged)", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-2"));
    const chunks = await collect((await agent.addMessage({ input: { messages: [{ role: "user", content: "hi" }] } }, { mode: "stream", assistantId: ASSISTANT })).stream);
    expect(graphEvents(chunks)).toEqual([]);
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
  });

  it("an interrupt ends with values carrying __interrupt__, and a resume command continues under another assistant's name", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-3"));
    const asked = await collect(
      (await agent.addMessage({ input: { messages: [{ role: "user", content: "/interrupt which colour?" }] } }, { mode: "stream", assistantId: ASSISTANT, streamModes: ["values"] })).stream,
    );
    expect(graphEvents(asked).at(-1)).toEqual({ event: "values", data: { __interrupt__: [{ id: expect.any(String), value: "which colour?" }] } });
    expect(asked.at(-1)).toMatchObject({ type: "interrupt" });

    await stores.assistants.createAssistant(TENANT, { id: "other", name: "Other", model: { provider: "scripted" } });
    const answered = await collect((await agent.addMessage({}, { mode: "stream", command: { resume: "blue" }, assistantId: "other", streamModes: ["updates"] })).stream);
    expect(graphEvents(answered).map((event) => Object.keys(event.data as object)[0])).toEqual(["tools", "agent"]);
    expect(answered.at(-1)).toMatchObject({ type: "message_completed" });
  });

  it("a run of an assistant that does not exist fails, whatever the thread", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-4"));
    const chunks = await collect((await agent.addMessage({ input: { messages: [{ role: "user", content: "hi" }] } }, { mode: "stream", assistantId: "ghost" })).stream);
    expect(chunks.at(-1)).toMatchObject({ type: "message_failed", data: { code: "ASSISTANT_NOT_FOUND" } });
  });

  it("logs the graph events with the run, so another replica replays them", async () => {
    const runEvents = new InMemoryRunEventLog();
    const owner = manager(stores, { runEvents, runEventFlushMs: 5 });
    const { messageId, completion } = await owner
      .getAgent(unboundThread("lg-5"))
      .addMessage({ input: { messages: [{ role: "user", content: "logged" }] } }, { mode: "wait", assistantId: ASSISTANT, streamModes: ["values"] });
    await completion;
    const replayed = await collect(manager(stores, { runEvents }).getAgent(unboundThread("lg-5")).chunkStream(messageId));
    expect(graphEvents(replayed).map((event) => event.event)).toEqual(["values", "values"]);
  });

  it("updates the state between runs under the thread's run lease, refused while a run holds it", async () => {
    const runtime = manager(stores);
    const scope = unboundThread("lg-6");
    const agent = runtime.getAgent(scope);
    await (await agent.addMessage({ input: { messages: [{ role: "user", content: "first" }] } }, { mode: "wait", assistantId: ASSISTANT })).completion;
    const checkpointId = await runtime.updateThreadState(scope, { messages: [{ role: "user", content: "added" }] });
    const state = await agent.stateSnapshot();
    expect(state.config.configurable?.checkpoint_id).toBe(checkpointId);
    expect((state.values.messages as Array<{ content: string }>).map((message) => message.content)).toEqual(["first", "echo: first", "added"]);
    expect((await agent.stateHistory({ limit: 2 })).map((snapshot) => snapshot.config.configurable?.checkpoint_id)[0]).toBe(checkpointId);

    const { completion } = await agent.addMessage({ input: { messages: [{ role: "user", content: "/sleep 800" }] } }, { mode: "wait", assistantId: ASSISTANT });
    await expect.poll(() => stores.leases.get(`thread-run:${TENANT}:*:lg-6`)).not.toBeNull();
    await expect(runtime.updateThreadState(scope, { messages: [{ role: "user", content: "racing" }] })).rejects.toBeInstanceOf(ThreadBusyError);
    await completion;
  }, 20_000);
});
