import { ANY_ASSISTANT } from "@axiom-lattice/protocols";
import { InMemoryRunEventLog } from "@axiom-lattice/core";
import { describe, expect, it } from "vitest";
import { type StreamChunk, ThreadBusyError } from "../src";
import { ASSISTANT, TENANT, collect, manager, useSharedStores } from "./support";

const stores = useSharedStores();

/** A thread the LangGraph API created: tied to no assistant, each run names its own. */
const unboundThread = (threadId: string) => ({ tenantId: TENANT, assistantId: ANY_ASSISTANT, threadId });

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
    // Its graph events alone, then its outcome: none of the /api dialect's chunks (tokens, tool calls).
    expect(chunks.filter((chunk) => chunk.type !== "graph_event").map((chunk) => chunk.type)).toEqual(["message_completed"]);
  });

  it("emit LangGraph's own modes debug, tasks and checkpoints from the same graph stream, as clients read them", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-debug"));
    const { stream } = await agent.addMessage({ input: { messages: [{ role: "user", content: "hi" }] } }, { mode: "stream", assistantId: ASSISTANT, streamModes: ["debug", "tasks", "checkpoints"] });
    const events = graphEvents(await collect(stream));
    const debug = events.filter((event) => event.event === "debug").map((event) => event.data as { type: string; step: number; timestamp: string; payload: Record<string, unknown> });
    expect(debug.map((event) => event.type)).toEqual(["checkpoint", "checkpoint", "task", "task_result", "checkpoint"]);
    expect(debug[0]).toMatchObject({ step: -1, timestamp: expect.any(String) });
    const checkpoint = debug.at(-1)!.payload;
    // The client's thread id everywhere, never the checkpointer's tenant-qualified one; values without the runtime's bookkeeping.
    expect(checkpoint.checkpoint).toEqual({ thread_id: "lg-debug", checkpoint_ns: "", checkpoint_id: expect.any(String), checkpoint_map: null });
    expect(checkpoint.parent_checkpoint).toMatchObject({ thread_id: "lg-debug" });
    expect(checkpoint.config).toMatchObject({ configurable: { thread_id: "lg-debug" } });
    expect(checkpoint.values).toEqual({ messages: [expect.objectContaining({ type: "human", content: "hi" }), expect.objectContaining({ type: "ai", content: "echo: hi" })] });
    expect(JSON.stringify(events)).not.toContain(TENANT);
    const tasks = events.filter((event) => event.event === "tasks").map((event) => event.data as Record<string, unknown>);
    expect(tasks).toEqual([
      expect.objectContaining({ name: "agent", input: { messages: [expect.objectContaining({ type: "human" })] }, triggers: expect.any(Array) }),
      expect.objectContaining({ name: "agent", result: { messages: [expect.objectContaining({ content: "echo: hi" })] }, error: null }),
    ]);
    expect(events.filter((event) => event.event === "checkpoints").map((event) => (event.data as { next: string[] }).next)).toEqual([["__start__"], ["agent"], []]);
  });

  it("emit LangChain's stream events (mode events) beside the graph's own modes, the root run named by the run's id, hidden steps left out", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-events"));
    const { messageId, stream } = await agent.addMessage({ input: { messages: [{ role: "user", content: "hello world" }] } }, { mode: "stream", assistantId: ASSISTANT, streamModes: ["events", "values"] });
    const chunks = await collect(stream);
    const events = graphEvents(chunks);
    expect(events.filter((event) => event.event === "values")).toHaveLength(2);
    const streamed = events.filter((event) => event.event === "events").map((event) => event.data as { event: string; name: string; run_id: string; metadata: Record<string, unknown>; data: Record<string, unknown>; tags: string[] });
    expect(streamed[0]).toMatchObject({ event: "on_chain_start", name: "LangGraph", run_id: messageId, tags: [] });
    expect(streamed.at(-1)).toMatchObject({ event: "on_chain_end", name: "LangGraph", run_id: messageId });
    expect(streamed.at(-1)!.data.output).toEqual({ messages: [expect.objectContaining({ type: "human" }), expect.objectContaining({ type: "ai", content: "echo: hello world" })] });
    const tokens = streamed.filter((event) => event.event === "on_chat_model_stream");
    expect(tokens.map((event) => (event.data.chunk as { content: string }).content).join("")).toBe("echo: hello world");
    expect(tokens[0].metadata).toMatchObject({ langgraph_node: "agent", thread_id: "lg-events" });
    expect(streamed.some((event) => event.name === "__start__" || event.event === "on_chain_stream")).toBe(false);
    expect(chunks.filter((chunk) => chunk.type !== "graph_event").map((chunk) => chunk.type)).toEqual(["message_completed"]);
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
    const runEvents = new InMemoryRunEventLog({ fences: stores.leases });
    const owner = manager(stores, { runEvents, runEventFlushMs: 5 });
    const { messageId, completion } = await owner
      .getAgent(unboundThread("lg-5"))
      .addMessage({ input: { messages: [{ role: "user", content: "logged" }] } }, { mode: "wait", assistantId: ASSISTANT, streamModes: ["values"] });
    await completion;
    const replayed = await collect(manager(stores, { runEvents }).getAgent(unboundThread("lg-5")).chunkStream(messageId));
    expect(graphEvents(replayed).map((event) => event.event)).toEqual(["values", "values"]);
  });

  it("pauses before or after the nodes a run names (interrupted, the thread waiting on its next node), and input null goes on from there", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-pause"));
    const say = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
    const paused = await (await agent.addMessage(say('/tool echo {"text":"ping"}'), { mode: "wait", assistantId: ASSISTANT, graph: { interruptBefore: ["tools"] } })).completion;
    expect(paused.status).toBe("interrupted");
    expect((await agent.stateSnapshot()).next).toEqual(["tools"]);

    const after = await (await agent.addMessage({ input: null }, { mode: "wait", assistantId: ASSISTANT, graph: { interruptAfter: "*" } })).completion;
    expect(after.status).toBe("interrupted");
    const afterTools = await agent.stateSnapshot();
    expect(afterTools.next).toEqual(["agent"]);
    expect((afterTools.values.messages as Array<{ content: string }>).at(-1)!.content).toBe("ping");

    const { stream } = await agent.addMessage({ input: null }, { mode: "stream", assistantId: ASSISTANT, streamModes: ["updates"] });
    const chunks = await collect(stream);
    expect(graphEvents(chunks).map((event) => Object.keys(event.data as object)[0])).toEqual(["agent"]);
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect((await agent.stateSnapshot()).next).toEqual([]);
    // Nothing left to go on with: input null runs nothing.
    expect((await (await agent.addMessage({ input: null }, { mode: "wait", assistantId: ASSISTANT })).completion).status).toBe("success");
  });

  it("a run beyond its recursion limit fails with GRAPH_RECURSION_LIMIT", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-recursion"));
    const { stream } = await agent.addMessage({ input: { messages: [{ role: "user", content: '/tool echo {"text":"loop"}' }] } }, { mode: "stream", assistantId: ASSISTANT, graph: { recursionLimit: 2 } });
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "message_failed", data: { code: "GRAPH_RECURSION_LIMIT", error: "GRAPH_RECURSION_LIMIT: Recursion limit of 2 reached without hitting a stop condition" } });
    const other = manager(stores).getAgent(unboundThread("lg-recursion-2"));
    const enough = await other.addMessage({ input: { messages: [{ role: "user", content: '/tool echo {"text":"loop"}' }] } }, { mode: "wait", assistantId: ASSISTANT, graph: { recursionLimit: 4 } });
    expect((await enough.completion).status).toBe("success");
  });

  it("runs from an earlier checkpoint the run names: the thread goes on from there (a fork)", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-fork"));
    const say = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
    await (await agent.addMessage(say("first"), { mode: "wait", assistantId: ASSISTANT })).completion;
    const afterFirst = (await agent.stateSnapshot()).config.configurable!.checkpoint_id as string;
    await (await agent.addMessage(say("second"), { mode: "wait", assistantId: ASSISTANT })).completion;
    await (await agent.addMessage(say("instead"), { mode: "wait", assistantId: ASSISTANT, graph: { checkpointId: afterFirst } })).completion;
    const state = await agent.stateSnapshot();
    expect((state.values.messages as Array<{ content: string }>).map((message) => message.content)).toEqual(["first", "echo: first", "instead", "echo: instead"]);
    // The abandoned branch stays in the history.
    const history = await agent.stateHistory({ limit: 50 });
    expect(history.some((snapshot) => (snapshot.values.messages as Array<{ content: string }> | undefined)?.some((message) => message.content === "second"))).toBe(true);
  });

  it("a run's own graph settings replace its assistant's for that run only", async () => {
    const agent = manager(stores).getAgent(unboundThread("lg-settings"));
    const say = (content: string) => ({ input: { messages: [{ role: "user", content }] } });
    const { stream } = await agent.addMessage(say('/tool echo {"text":"ping"}'), { mode: "stream", assistantId: ASSISTANT, streamModes: ["events"], graph: { settings: { systemPrompt: "Be terse.", tools: ["clock"] } } });
    const events = graphEvents(await collect(stream)).map((event) => event.data as { event: string; data: { input?: { messages?: Array<Array<{ type: string; content: string }>> } } });
    const prompt = events.find((event) => event.event === "on_chat_model_start")!.data.input!.messages![0];
    expect(prompt[0]).toMatchObject({ type: "system", content: "Be terse." });
    const refused = (await agent.stateSnapshot()).values.messages as Array<{ type: string; content: string }>;
    // echo is not among this run's tools.
    expect(refused.find((message) => message.type === "tool")!.content).toContain("echo");
    expect(refused.find((message) => message.type === "tool")!.content).not.toBe("ping");

    const failed = await agent.addMessage(say("x"), { mode: "stream", assistantId: ASSISTANT, graph: { settings: { model: { provider: "nowhere" } } } });
    expect((await collect(failed.stream)).at(-1)).toMatchObject({ type: "message_failed", data: { code: "UNKNOWN_MODEL_PROVIDER" } });
    // The next run has the assistant's settings again.
    const { stream: plain } = await agent.addMessage(say('/tool echo {"text":"pong"}'), { mode: "stream", assistantId: ASSISTANT });
    expect((await collect(plain)).find((chunk) => chunk.type === "tool_result")).toMatchObject({ data: { content: "pong" } });
  });

  it("updates the state between runs under the thread's run lease, refused while a run holds it", async () => {
    const runtime = manager(stores);
    const scope = unboundThread("lg-6");
    const agent = runtime.getAgent(scope);
    await (await agent.addMessage({ input: { messages: [{ role: "user", content: "first" }] } }, { mode: "wait", assistantId: ASSISTANT })).completion;
    const checkpointId = await runtime.updateThreadState(scope, { values: { messages: [{ role: "user", content: "added" }] } });
    const state = await agent.stateSnapshot();
    expect(state.config.configurable?.checkpoint_id).toBe(checkpointId);
    expect((state.values.messages as Array<{ content: string }>).map((message) => message.content)).toEqual(["first", "echo: first", "added"]);
    expect((await agent.stateHistory({ limit: 2 })).map((snapshot) => snapshot.config.configurable?.checkpoint_id)[0]).toBe(checkpointId);

    const { completion } = await agent.addMessage({ input: { messages: [{ role: "user", content: "/sleep 800" }] } }, { mode: "wait", assistantId: ASSISTANT });
    await expect.poll(() => stores.leases.get(`thread-run:${TENANT}:*:lg-6`)).not.toBeNull();
    await expect(runtime.updateThreadState(scope, { values: { messages: [{ role: "user", content: "racing" }] } })).rejects.toBeInstanceOf(ThreadBusyError);
    await completion;
  }, 20_000);
});
