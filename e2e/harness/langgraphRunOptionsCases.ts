import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, collect, eventNames, freshTenant, refusal, say, sdkClient } from "./langgraphSdk";

/**
 * SDK cases of what a LangGraph run may ask beyond its input (issue 24): the stream modes events,
 * debug, tasks and checkpoints; pausing before or after nodes; a recursion limit; running from an
 * earlier checkpoint; the graph's settings for one run. Each case uses a tenant of its own.
 */
export function langgraphRunOptionsConformance(target: () => LanggraphTarget): void {
  /** A client of a fresh tenant, with an assistant of the built-in graph (scripted model, the echo tool). */
  const setUp = async (name: string): Promise<{ client: Client; assistantId: string }> => {
    const client = await sdkClient(target().url, freshTenant(name));
    const { assistant_id } = await client.assistants.create({ graphId: GRAPH, context: { tools: ["echo"] } });
    return { client, assistantId: assistant_id };
  };

  it("stream modes events, debug, tasks and checkpoints, as LangGraph Platform sends them", async () => {
    const { client, assistantId } = await setUp("modes");
    const { thread_id } = await client.threads.create();
    const created: string[] = [];
    const streamed = await collect(
      client.runs.stream(thread_id, assistantId, { input: say('/tool echo {"text":"ping"}'), streamMode: ["events", "debug", "tasks", "checkpoints"], onRunCreated: ({ run_id }) => created.push(run_id) }),
    );
    const [runId] = created;
    const of = (name: string) => streamed.filter((event) => event.event === name).map((event) => event.data as Record<string, unknown>);

    // events: LangChain's stream events, the graph's root run named by the run's id.
    const lifecycle = of("events").filter((event) => event.name === "agent" || event.name === "tools").map((event) => `${event.event}:${event.name}`);
    expect(lifecycle).toEqual(["on_chain_start:agent", "on_chain_end:agent", "on_chain_start:tools", "on_chain_end:tools", "on_chain_start:agent", "on_chain_end:agent"]);
    expect(of("events")[0]).toMatchObject({ event: "on_chain_start", name: "LangGraph", run_id: runId, metadata: { thread_id } });
    expect(of("events").some((event) => event.event === "on_tool_start" && event.name === "echo")).toBe(true);

    // debug: checkpoints and tasks with their step and time.
    expect(of("debug").map((event) => event.type)).toEqual(["checkpoint", "checkpoint", "task", "task_result", "checkpoint", "task", "task_result", "checkpoint", "task", "task_result", "checkpoint"]);
    expect(of("debug")[2]).toMatchObject({ type: "task", step: 1, timestamp: expect.any(String), payload: { name: "agent" } });

    // tasks: each node's start and result; checkpoints: each step's, the last one the thread's state.
    expect(of("tasks").map((task) => `${task.name}:${"result" in task ? "result" : "start"}`)).toEqual(["agent:start", "agent:result", "tools:start", "tools:result", "agent:start", "agent:result"]);
    const checkpoints = of("checkpoints");
    expect(checkpoints.map((checkpoint) => checkpoint.next)).toEqual([["__start__"], ["agent"], ["tools"], ["agent"], []]);
    const state = await client.threads.getState(thread_id);
    expect(checkpoints.at(-1)).toMatchObject({ checkpoint: state.checkpoint, values: state.values });

    // A join stream of the run follows a subset of its modes, on any replica.
    expect(eventNames(await collect(client.runs.joinStream(thread_id, runId, { streamMode: "tasks" })))).toEqual(["metadata", ...Array(6).fill("tasks")]);
  });

  it("interrupt_before / interrupt_after pause the run as on the platform: the thread is interrupted, input null continues", async () => {
    const { client, assistantId } = await setUp("pause");
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, assistantId, { input: say('/tool echo {"text":"ping"}'), interruptBefore: ["tools"] });
    expect((await client.threads.get(thread_id)).status).toBe("interrupted");
    expect((await client.threads.getState(thread_id)).next).toEqual(["tools"]);

    await client.runs.wait(thread_id, assistantId, { input: null, interruptAfter: "*" });
    expect((await client.threads.getState(thread_id)).next).toEqual(["agent"]);
    expect((await client.threads.get(thread_id)).status).toBe("interrupted");

    // A resume command continues it too.
    const rest = await collect(client.runs.stream(thread_id, assistantId, { command: { resume: "go on" }, streamMode: "updates" }));
    expect(eventNames(rest)).toEqual(["metadata", "updates"]);
    expect((await client.threads.get(thread_id)).status).toBe("idle");
    expect((await client.threads.getState<{ messages: Array<{ content: string }> }>(thread_id)).values.messages.at(-1)!.content).toBe("echo returned: ping");
  });

  it("config.recursion_limit: a run beyond it ends with an error event of a stable code", async () => {
    const { client, assistantId } = await setUp("recursion");
    const { thread_id } = await client.threads.create();
    const events = await collect(client.runs.stream(thread_id, assistantId, { input: say('/tool echo {"text":"loop"}'), config: { recursion_limit: 2 } }));
    expect(events.at(-1)).toMatchObject({ event: "error", data: { error: "GRAPH_RECURSION_LIMIT" } });
    expect((await client.threads.get(thread_id)).status).toBe("error");
  });

  it("checkpoint_id forks a thread from an earlier checkpoint (runs and state updates), and getState reads a checkpoint", async () => {
    const { client, assistantId } = await setUp("fork");
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, assistantId, { input: say("first") });
    const { checkpoint } = await client.threads.getState(thread_id);
    await client.runs.wait(thread_id, assistantId, { input: say("second") });

    const forked = (await client.runs.wait(thread_id, assistantId, { input: say("instead"), checkpointId: checkpoint.checkpoint_id! })) as { messages: Array<{ content: string }> };
    expect(forked.messages.map((message) => message.content)).toEqual(["first", "echo: first", "instead", "echo: instead"]);
    expect((await client.threads.getState(thread_id, checkpoint.checkpoint_id!)).checkpoint).toEqual(checkpoint);

    await client.threads.updateState(thread_id, { values: { messages: [{ role: "user", content: "edited" }] }, checkpoint });
    const state = await client.threads.getState<{ messages: Array<{ content: string }> }>(thread_id);
    expect(state.values.messages.map((message) => message.content)).toEqual(["first", "echo: first", "edited"]);
  });

  it("a run's context (model, tools, system_prompt) overrides the assistant's for that run only; an unknown tool is refused, nothing queued", async () => {
    const { client, assistantId } = await setUp("settings");
    const { thread_id } = await client.threads.create();
    const events = await collect(client.runs.stream(thread_id, assistantId, { input: say("hi"), context: { system_prompt: "Be terse." }, streamMode: "events" }));
    const start = events.find((event) => (event.data as { event: string }).event === "on_chat_model_start")!.data as { data: { input: { messages: Array<Array<{ type: string; content: string }>> } } };
    expect(start.data.input.messages[0][0]).toMatchObject({ type: "system", content: "Be terse." });

    expect(await refusal(client.runs.create(thread_id, assistantId, { input: say("x"), context: { tools: ["no-such-tool"] } }))).toMatchObject({ status: 400, body: { code: "UNKNOWN_TOOL" } });
    expect(await client.runs.list(thread_id)).toHaveLength(1);
    // The assistant keeps its own settings.
    const { context } = await client.assistants.get(assistantId);
    expect(context).toMatchObject({ tools: ["echo"] });
    expect(context).not.toHaveProperty("system_prompt");
  });
}
