import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import type { LangGraphRunnableConfig, StreamMode } from "@langchain/langgraph";
import type { AssistantGraph, NodeInterrupt } from "./reactGraph";

/** One of LangChain's stream events (`streamEvents` v2), as LangGraph Platform's `events` mode carries them. */
export type GraphStreamEvent = StreamEvent;

/** The mode of one item of a run's graph stream: one of the graph's stream modes, or `events`. */
export type GraphStreamItemMode = StreamMode | "events";

export type GraphStreamInput = Parameters<AssistantGraph["stream"]>[0];
type ReactNodeInterrupt = NonNullable<NonNullable<Parameters<AssistantGraph["stream"]>[1]>["interruptBefore"]>;

export interface GraphStreamOptions {
  config: LangGraphRunnableConfig;
  streamMode: StreamMode[];
  signal: AbortSignal;
  /** Also stream LangChain's stream events (mode `events`). */
  events: boolean;
  /** The run's id: the graph's root run carries it, as on LangGraph Platform. */
  runId: string;
  /** LangGraph's `interruptBefore` / `interruptAfter`: node names, or `*` for every node. */
  interruptBefore?: NodeInterrupt;
  interruptAfter?: NodeInterrupt;
  /** Also stream the subgraphs' items, each with its subgraph's namespace. */
  subgraphs?: boolean;
}

/** One item of a run's graph stream: its mode, its payload, and the namespace of the subgraph it came from (empty: the graph's own). */
export type GraphStreamItem = [GraphStreamItemMode, unknown, string[]];

/**
 * One run of the graph as `[mode, payload]` items. With `events`, the graph runs under
 * `streamEvents` instead of `stream`, as LangGraph Platform runs it: the graph's own stream modes
 * arrive there as its root run's `on_chain_stream` events and are handed out as the same items,
 * every other event as an `events` item. Events LangChain marks hidden (the graph's internal steps,
 * such as `__start__`) are left out, as the platform leaves them out: the volume stays a few events a
 * node plus one a model token.
 */
export async function* graphStream(graph: AssistantGraph, input: GraphStreamInput, options: GraphStreamOptions): AsyncGenerator<GraphStreamItem> {
  const { config, streamMode, signal, events, runId, interruptBefore, interruptAfter, subgraphs = false } = options;
  // Typed with the ReAct graph's node names; a deployed graph checks its own.
  const nodes = (interrupt: NodeInterrupt) => interrupt as ReactNodeInterrupt;
  const runConfig = {
    ...config,
    streamMode,
    signal,
    runId,
    subgraphs,
    ...(interruptBefore ? { interruptBefore: nodes(interruptBefore) } : {}),
    ...(interruptAfter ? { interruptAfter: nodes(interruptAfter) } : {}),
  };
  if (!events) {
    for await (const chunk of (await graph.stream(input, runConfig)) as AsyncIterable<GraphChunk>) yield itemOf(chunk);
    return;
  }
  for await (const event of graph.streamEvents(input, { ...runConfig, version: "v2" })) {
    if (event.event === "on_chain_stream" && event.run_id === runId) {
      yield itemOf((event.data as { chunk: GraphChunk }).chunk);
    } else if (!event.tags?.includes("langsmith:hidden")) {
      yield ["events", event, []];
    }
  }
}

/** What LangGraph streams for several modes: `[mode, payload]`, or with subgraphs `[namespace, mode, payload]`. */
type GraphChunk = [StreamMode, unknown] | [string[], StreamMode, unknown];

const itemOf = (chunk: GraphChunk): GraphStreamItem => (chunk.length === 3 ? [chunk[1], chunk[2], chunk[0]] : [chunk[0], chunk[1], []]);
