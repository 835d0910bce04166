import type { StreamChunk } from "@axiom-lattice/agent";
import { MessageChunkTypes } from "@axiom-lattice/protocols";

// What the embedded page is streamed: a run's chunks reduced to what a chat shows. Each keeps its
// chunk's id, so a page resumes a projected stream exactly as a raw one.

/** One event of a projected stream (`WebAppChunk` in the API document). */
export type PageChunk =
  | { type: "text"; message_id?: string; text: string }
  | { type: "tool"; phase: "call" | "result"; name?: string; call_id?: string }
  | { type: "interrupt"; interrupts: { id?: string; value: unknown }[] }
  | { type: "done"; status: string }
  | { type: "error"; code?: string; error: string }
  | { type: "resumed"; replica: string }
  | { type: "affinity_miss"; owner: string; message_id: string };

type ChunkData = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The page's view of a chunk: text, tool activity (names only: a tool's arguments and results stay
 * the operator's), interrupts, the end; `undefined` for what a chat does not show (LangGraph events,
 * a hand-over, which a `resumed` event follows).
 */
export function toPageChunk({ type, data }: StreamChunk): PageChunk | undefined {
  const fields = (data ?? {}) as ChunkData;
  switch (type) {
    case MessageChunkTypes.MESSAGE_CHUNK:
      return { type: "text", message_id: text(fields.id), text: text(fields.content) ?? "" };
    case MessageChunkTypes.TOOL_CALL:
      return { type: "tool", phase: "call", name: text(fields.name), call_id: text(fields.id) };
    case MessageChunkTypes.TOOL_RESULT:
      return { type: "tool", phase: "result", name: text(fields.name), call_id: text(fields.tool_call_id) };
    case MessageChunkTypes.INTERRUPT:
      return { type: "interrupt", interrupts: Array.isArray(fields.interrupts) ? (fields.interrupts as Extract<PageChunk, { type: "interrupt" }>["interrupts"]) : [] };
    case MessageChunkTypes.MESSAGE_COMPLETED:
      return { type: "done", status: text(fields.status) ?? "success" };
    case MessageChunkTypes.MESSAGE_FAILED:
    case MessageChunkTypes.ERROR:
      return { type: "error", code: text(fields.code), error: text(fields.error) ?? "The run failed" };
    case MessageChunkTypes.RUN_RESUMED:
      return { type: "resumed", replica: text(fields.replica) ?? "" };
    case MessageChunkTypes.AFFINITY_MISS:
      return { type: "affinity_miss", owner: text(fields.owner) ?? "", message_id: text(fields.message_id) ?? "" };
    default:
      return undefined;
  }
}
