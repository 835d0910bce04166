import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, collect, eventNames, freshTenant, say, sdkClient } from "./langgraphSdk";

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
    expect(eventNames(await collect(client.runs.joinStream(thread_id, runId, { streamMode: "tasks" })))).toEqual(["metadata", ...Array(6).fill("tasks"), "end"]);
  });
}
