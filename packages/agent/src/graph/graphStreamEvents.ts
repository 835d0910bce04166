import { type MessageChunk, MessageChunkTypes } from "@axiom-lattice/protocols";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { StreamMode } from "@langchain/langgraph";
import { clientCheckpointPayload, clientTaskPayload } from "./clientCheckpoints";
import { clientStateValues, toClientJson } from "./clientJson";
import type { GraphStreamItemMode, GraphStreamEvent } from "./graphStream";

/** The LangGraph stream modes a run can emit (as the LangGraph API names them). */
export const GRAPH_STREAM_MODES = ["values", "updates", "messages", "messages-tuple", "custom", "events", "debug", "tasks", "checkpoints"] as const;
export type GraphStreamMode = (typeof GRAPH_STREAM_MODES)[number];

/** What a LangGraph stream event carries: its SSE event name and its JSON data. */
export interface GraphEvent {
  event: string;
  data: unknown;
}

/**
 * The graph's own stream modes that serve `modes`: `messages-tuple` is the graph's `messages`;
 * `messages` (LangGraph Platform's `messages/*` events) is made of its `messages` (tokens) and its
 * `values` (whole messages); `events` is no mode of the graph's but its stream events (see `graphStream`).
 */
export function graphModesFor(modes: readonly GraphStreamMode[]): StreamMode[] {
  const graphModes = modes.flatMap((mode): StreamMode[] => {
    if (mode === "messages-tuple") return ["messages"];
    if (mode === "messages") return ["messages", "values"];
    return mode === "events" ? [] : [mode];
  });
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

  /**
   * The chunks of one item of the graph's stream: none for a mode the run did not ask for. An item of
   * a subgraph (`namespace` not empty) is named with it, as LangGraph Platform names it: `updates|child:1`.
   */
  chunksOf(mode: GraphStreamItemMode, payload: unknown, namespace: readonly string[] = []): MessageChunk<GraphEvent>[] {
    const events = [graphEventOf(mode, payload, this.run), ...(this.run.modes.includes("messages") ? this.messageEventsOf(mode, payload) : [])];
    return events
      .filter((event) => event !== undefined)
      .map((event) => ({ type: MessageChunkTypes.GRAPH_EVENT, data: namespace.length === 0 ? event : { ...event, event: [event.event, ...namespace].join("|") } }));
  }

  private messageEventsOf(mode: GraphStreamItemMode, payload: unknown): GraphEvent[] {
    if (mode === "messages") {
      const [message, metadata] = payload as [BaseMessage, Record<string, unknown>];
      // Whole messages (a tool's answer) come complete with the values; only the model's tokens are partial.
      if (!isAiMessageChunk(message) || !message.id) return [];
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

/**
 * A model's token chunk, of this runtime's LangChain or of a deployed graph's own copy (whose classes
 * `isInstance` does not recognise: it compares prototypes). Chunks concatenate; whole messages do not.
 */
const isAiMessageChunk = (message: BaseMessage): message is AIMessageChunk =>
  AIMessageChunk.isInstance(message) || (message.type === "ai" && typeof (message as Partial<AIMessageChunk>).concat === "function");

/** A message's metadata as clients read it: the graph's thread id is the checkpointer's (tenant-qualified), clients know the thread by its own id. */
const clientMetadataOf = (metadata: Record<string, unknown>, { threadId, runId }: GraphEventRun) => toClientJson({ ...metadata, thread_id: threadId, run_id: runId });

function graphEventOf(mode: GraphStreamItemMode, payload: unknown, run: GraphEventRun): GraphEvent | undefined {
  const { modes, threadId } = run;
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
    case "checkpoints":
      return modes.includes("checkpoints") ? { event: "checkpoints", data: clientCheckpointPayload(threadId, payload as Parameters<typeof clientCheckpointPayload>[1]) } : undefined;
    case "tasks":
      return modes.includes("tasks") ? { event: "tasks", data: clientTaskPayload(payload as Record<string, unknown>) } : undefined;
    case "debug": {
      if (!modes.includes("debug")) return undefined;
      const { type, payload: inner, ...debug } = payload as { type: string; payload: Record<string, unknown> };
      const data = type === "checkpoint" ? clientCheckpointPayload(threadId, inner) : clientTaskPayload(inner);
      return { event: "debug", data: { ...debug, type, payload: data } };
    }
    case "events":
      return modes.includes("events") ? { event: "events", data: clientStreamEventOf(payload as GraphStreamEvent, run) } : undefined;
    default:
      return undefined;
  }
}

/**
 * One of LangChain's stream events as LangGraph Platform's `events` mode sends it: plain JSON, the
 * client's thread id in its metadata, and states without the runtime's bookkeeping channel.
 */
function clientStreamEventOf({ data, metadata, ...event }: GraphStreamEvent, { threadId }: GraphEventRun): Record<string, unknown> {
  const clientData = Object.fromEntries(Object.entries(data ?? {}).map(([key, value]) => [key, isState(value) ? clientStateValues(value) : toClientJson(value)]));
  return { ...(toClientJson(event) as Record<string, unknown>), data: clientData, metadata: toClientJson({ ...metadata, thread_id: threadId }) };
}

const isState = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && "runStarts" in value;
