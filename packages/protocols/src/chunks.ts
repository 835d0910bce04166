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
  /**
   * A LangGraph stream event `{ event, data }` (`values`, `updates`, `messages`, `custom`), emitted
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

export interface AffinityMissData {
  code: typeof AFFINITY_MISS_CODE;
  owner: string;
  threadId: string;
  /** The message the client asked to follow: resume it on `owner` with `resume_stream`. */
  messageId: string;
}

/**
 * The chunk a replica streams when a peer (`owner`) runs the thread. It names the message, which a
 * client that let the gateway choose the id knows from nowhere else.
 */
export function buildAffinityMissChunk(owner: string, threadId: string, messageId: string): MessageChunk<AffinityMissData> {
  return {
    type: MessageChunkTypes.AFFINITY_MISS,
    data: { code: AFFINITY_MISS_CODE, owner, threadId, messageId },
  };
}
