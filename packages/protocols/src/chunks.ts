import { AFFINITY_MISS_CODE } from "./headers";

/** Kinds of chunk a run streams to its subscribers (the `type` of each SSE event). */
export const MessageChunkTypes = {
  MESSAGE_CHUNK: "message_chunk",
  TOOL_CALL: "tool_call",
  TOOL_RESULT: "tool_result",
  INTERRUPT: "interrupt",
  MESSAGE_COMPLETED: "message_completed",
  MESSAGE_FAILED: "message_failed",
  ERROR: "error",
  AFFINITY_MISS: "affinity_miss",
  RUN_HANDED_OVER: "run_handed_over",
  RUN_RESUMED: "run_resumed",
  /**
   * A LangGraph stream event `{ event, data }` (`values`, `updates`, `messages`, `messages/partial`…, `custom`), emitted
   * only by runs queued with LangGraph stream modes (the LangGraph-compatible API's runs).
   */
  GRAPH_EVENT: "graph_event",
} as const;

export type MessageChunkType = (typeof MessageChunkTypes)[keyof typeof MessageChunkTypes];

/** One streamed unit of a run. */
export interface MessageChunk<T = unknown> {
  type: MessageChunkType;
  data: T;
}

/** Chunk types after which a message's stream ends. */
export const TERMINAL_CHUNK_TYPES: readonly MessageChunkType[] = [
  MessageChunkTypes.MESSAGE_COMPLETED,
  MessageChunkTypes.MESSAGE_FAILED,
  MessageChunkTypes.INTERRUPT,
  MessageChunkTypes.AFFINITY_MISS,
];

/** Whether a message's stream ends with `chunk`: its outcome, or an error that ends the stream. */
export const endsChunkStream = (chunk: Pick<MessageChunk, "type">): boolean =>
  chunk.type === MessageChunkTypes.ERROR || TERMINAL_CHUNK_TYPES.includes(chunk.type);

/** Why a replica stopped running a message before it ended (the `code` of a `run_handed_over` event). */
export type HandOverCode = "LEASE_LOST" | "CLAIM_LOST" | "REPLICA_SHUTDOWN" | "DATABASE_UNAVAILABLE" | "TASK_SETTLEMENT_FAILED";

/**
 * A replica stopped running the message without ending it: the run continues where its thread runs
 * next (a peer, or this replica again), and the stream goes on with a `run_resumed` event. Not the end
 * of the stream.
 */
export interface RunHandedOverData {
  code: HandOverCode;
  /** What happened, in English. */
  reason: string;
  /** The replica that stopped running it. */
  replica: string;
}

/**
 * The message runs again, on `replica`, from its last checkpoint: events after this one are that
 * attempt's. Its index jumps past every id an earlier attempt may have sent, so some ids are never
 * used. Text the earlier attempt streamed for a step it did not checkpoint is streamed again: a
 * client showing a partial answer discards what came after the last completed step (for the built-in
 * graph: after the last `tool_result`) and shows the new text instead.
 */
export interface RunResumedData {
  /** The replica running the message now. */
  replica: string;
  /** Which attempt this is: 2 for the first re-run. */
  attempt: number;
}

/** The `data` of an `affinity_miss` event, as sent (snake_case, as every `/api` event's data). */
export interface AffinityMissData {
  code: typeof AFFINITY_MISS_CODE;
  owner: string;
  thread_id: string;
  /** The message the client asked to follow: resume it on `owner` with `resume_stream`. */
  message_id: string;
}

/**
 * The chunk a replica streams when a peer (`owner`) runs the thread. It names the message, which a
 * client that let the gateway choose the id knows from nowhere else.
 */
export function buildAffinityMissChunk(owner: string, threadId: string, messageId: string): MessageChunk<AffinityMissData> {
  return {
    type: MessageChunkTypes.AFFINITY_MISS,
    data: { code: AFFINITY_MISS_CODE, owner, thread_id: threadId, message_id: messageId },
  };
}
