import { type MessageChunk, MessageChunkTypes } from "@axiom-lattice/protocols";
import type { StreamMode } from "@langchain/langgraph";
import { clientStateValues, toClientJson } from "./clientJson";

/** The LangGraph stream modes a run can emit (as the LangGraph API names them). */
export const GRAPH_STREAM_MODES = ["values", "updates", "messages-tuple", "custom"] as const;
export type GraphStreamMode = (typeof GRAPH_STREAM_MODES)[number];

/** What a LangGraph stream event carries: its SSE event name and its JSON data. */
export interface GraphEvent {
  event: string;
  data: unknown;
}

/** The graph's own stream modes that serve `modes` (`messages-tuple` is the graph's `messages`). */
export function graphModesFor(modes: readonly GraphStreamMode[]): StreamMode[] {
  return modes.map((mode) => (mode === "messages-tuple" ? "messages" : mode));
}

export interface GraphEventRun {
  modes: readonly GraphStreamMode[];
  /** The thread and run as clients know them: message metadata names them. */
  threadId: string;
  runId: string;
}

/**
 * The chunks of one item of the graph's stream, for the modes the run asked for: none for a mode it
 * did not ask for. Data is plain JSON, ready for the run's log and for any replica's client.
 */
export function graphEventChunks(mode: StreamMode, payload: unknown, run: GraphEventRun): MessageChunk<GraphEvent>[] {
  const event = graphEventOf(mode, payload, run);
  return event ? [{ type: MessageChunkTypes.GRAPH_EVENT, data: event }] : [];
}

function graphEventOf(mode: StreamMode, payload: unknown, { modes, threadId, runId }: GraphEventRun): GraphEvent | undefined {
  switch (mode) {
    case "values":
      return modes.includes("values") ? { event: "values", data: clientStateValues(payload as Record<string, unknown>) } : undefined;
    case "updates": {
      if (!modes.includes("updates")) return undefined;
      // `__metadata__` marks writes replayed from a checkpoint: the runtime's concern, not the client's.
      const { __metadata__: _replayed, ...updates } = payload as Record<string, unknown>;
      return { event: "updates", data: toClientJson(updates) };
    }
    case "messages": {
      if (!modes.includes("messages-tuple")) return undefined;
      const [message, metadata] = payload as [unknown, Record<string, unknown>];
      // The graph's thread id is the checkpointer's (tenant-qualified): clients know the thread by its own id.
      return { event: "messages", data: [toClientJson(message), toClientJson({ ...metadata, thread_id: threadId, run_id: runId })] };
    }
    case "custom":
      return modes.includes("custom") ? { event: "custom", data: toClientJson(payload) } : undefined;
    default:
      return undefined;
  }
}
