import { type MessageChunk, MessageChunkTypes } from "@axiom-lattice/protocols";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { StreamMode } from "@langchain/langgraph";
import { clientStateValues, toClientJson } from "./clientJson";

/** The LangGraph stream modes a run can emit (as the LangGraph API names them). */
export const GRAPH_STREAM_MODES = ["values", "updates", "messages", "messages-tuple", "custom"] as const;
export type GraphStreamMode = (typeof GRAPH_STREAM_MODES)[number];

/** What a LangGraph stream event carries: its SSE event name and its JSON data. */
export interface GraphEvent {
  event: string;
  data: unknown;
}

/**
 * The graph's own stream modes that serve `modes`: `messages-tuple` is the graph's `messages`;
 * `messages` (LangGraph Platform's `messages/*` events) is made of its `messages` (tokens) and its
 * `values` (whole messages).
 */
export function graphModesFor(modes: readonly GraphStreamMode[]): StreamMode[] {
  const graphModes = modes.flatMap((mode): StreamMode[] => (mode === "messages-tuple" ? ["messages"] : mode === "messages" ? ["messages", "values"] : [mode]));
  return [...new Set(graphModes)];
}

export interface GraphEventRun {
  modes: readonly GraphStreamMode[];
  /** The thread and run as clients know them: message metadata names them. */
  threadId: string;
  runId: string;
}

/**
 * The LangGraph events of one run's graph stream, for the modes the run asked for. Data is plain
 * JSON, ready for the run's log and for any replica's client. `messages` mode keeps what it saw, as
 * LangGraph Platform does: each streamed message's chunks so far (`messages/metadata` the first time,
 * then `messages/partial` with the message as it grew) and the ids of the messages already sent whole
 * (`messages/complete`, each message once, from the state's values).
 */
export class GraphEvents {
  private readonly partial = new Map<string, AIMessageChunk>();
  private readonly completed = new Set<string>();

  constructor(private readonly run: GraphEventRun) {}

  /** The chunks of one item of the graph's stream: none for a mode the run did not ask for. */
  chunksOf(mode: StreamMode, payload: unknown): MessageChunk<GraphEvent>[] {
    const events = [graphEventOf(mode, payload, this.run), ...(this.run.modes.includes("messages") ? this.messageEventsOf(mode, payload) : [])];
    return events.filter((event) => event !== undefined).map((event) => ({ type: MessageChunkTypes.GRAPH_EVENT, data: event }));
  }

  private messageEventsOf(mode: StreamMode, payload: unknown): GraphEvent[] {
    if (mode === "messages") {
      const [message, metadata] = payload as [BaseMessage, Record<string, unknown>];
      // Whole messages (a tool's answer) come complete with the values; only the model's tokens are partial.
      if (!AIMessageChunk.isInstance(message) || !message.id) return [];
      const known = this.partial.get(message.id);
      this.partial.set(message.id, known ? known.concat(message) : message);
      const partial = { event: "messages/partial", data: [toClientJson(this.partial.get(message.id))] };
      if (known) return [partial];
      return [{ event: "messages/metadata", data: { [message.id]: { metadata: clientMetadataOf(metadata, this.run) } } }, partial];
    }
    if (mode === "values") {
      const messages = ((payload as { messages?: BaseMessage[] }).messages ?? []).filter((message) => message.id && !this.completed.has(message.id));
      for (const message of messages) this.completed.add(message.id!);
      return messages.length > 0 ? [{ event: "messages/complete", data: messages.map((message) => toClientJson(message)) }] : [];
    }
    return [];
  }
}

/** A message's metadata as clients read it: the graph's thread id is the checkpointer's (tenant-qualified), clients know the thread by its own id. */
const clientMetadataOf = (metadata: Record<string, unknown>, { threadId, runId }: GraphEventRun) => toClientJson({ ...metadata, thread_id: threadId, run_id: runId });

function graphEventOf(mode: StreamMode, payload: unknown, run: GraphEventRun): GraphEvent | undefined {
  const { modes } = run;
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
      return { event: "messages", data: [toClientJson(message), clientMetadataOf(metadata, run)] };
    }
    case "custom":
      return modes.includes("custom") ? { event: "custom", data: toClientJson(payload) } : undefined;
    default:
      return undefined;
  }
}
