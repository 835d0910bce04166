import type { Agent, GraphEvent, StreamChunk } from "@axiom-lattice/agent";
import { type MessageChunk, MessageChunkTypes, endsChunkStream } from "@axiom-lattice/protocols";
import type { FastifyReply } from "fastify";
import { type SseStreamOptions, openSseStream } from "../http/sse";
import { HttpError } from "../http/errors";
import { parseStreamEventId } from "../shared/streamEventIds";
import { runErrorOf } from "./runOutcome";

/**
 * The stream mode each LangGraph event belongs to (`messages` events are the `messages-tuple` mode's,
 * `messages/…` the `messages` mode's); a subgraph's are named `event|namespace`.
 */
const MODE_OF_EVENT: Record<string, string> = { values: "values", updates: "updates", messages: "messages-tuple", custom: "custom" };
const modeOfEvent = (namespaced: string) => {
  const [event] = namespaced.split("|");
  return event.startsWith("messages/") ? "messages" : (MODE_OF_EVENT[event] ?? event);
};

/**
 * The SSE event a run's chunk becomes in a LangGraph stream of `modes`: its graph events of those
 * modes, and `error` when the run failed or its replica stopped it; nothing for the rest (the /api
 * dialect's chunks, and the run's happy end, which the stream's `end` event closes).
 */
export function sseEventOf(chunk: MessageChunk, modes: readonly string[]): GraphEvent | undefined {
  switch (chunk.type) {
    case MessageChunkTypes.GRAPH_EVENT: {
      const event = chunk.data as GraphEvent;
      return modes.includes(modeOfEvent(event.event)) ? event : undefined;
    }
    case MessageChunkTypes.MESSAGE_FAILED: {
      const { status, error, code } = chunk.data as { status: "error" | "aborted"; error?: string; code?: string };
      return { event: "error", data: runErrorOf(status, error, code) };
    }
    case MessageChunkTypes.ERROR: {
      const { code, error } = chunk.data as { code: string; error: string };
      return { event: "error", data: { error: code, message: error } };
    }
    default:
      return undefined;
  }
}

/** Cancels the run, wherever it runs: the stop is recorded on it (run control), without waiting for it to apply. */
export const cancelRun = (agent: Agent, runId: string) => () => agent.abort(runId, { waitMs: 0 });

/** The id of a run stream's `metadata` event; the run's chunk `i` is `i + 1`, as the platform numbers a stream's events. */
const METADATA_EVENT_ID = "0";

const runStreamEventId = (index: number) => String(index + 1);

/**
 * Where a `Last-Event-ID` header resumes a run's stream: after the chunk index it names (`-1`: the
 * `metadata` event). Ids `<run_id>:<index>`, as streams sent them before, are read too; an id of
 * another run, or anything else, is a 400 `INVALID_REQUEST`.
 */
export function resumeIndexOf(lastEventId: string, runId: string): number {
  if (/^\d{1,15}$/.test(lastEventId)) return Number(lastEventId) - 1;
  const position = parseStreamEventId(lastEventId);
  if (position.messageId !== runId) throw new HttpError("INVALID_REQUEST", `The Last-Event-ID header names run ${position.messageId}, not ${runId}`);
  return position.index;
}

export interface RunStreamOptions {
  runId: string;
  /** The run's attempt (1, then one more each time another replica takes it over), for the `metadata` event. */
  attempt: number;
  /** The run's chunks, from where the client is. */
  chunks: AsyncIterable<StreamChunk>;
  /** The stream modes the client follows. */
  modes: readonly string[];
  /** Open with the `metadata` event naming the run (not when resuming after a `Last-Event-ID`). */
  announce: boolean;
  sse: SseStreamOptions;
  /** Called when the client leaves before the stream's end (`on_disconnect: cancel`: cancels the run). */
  onDisconnect?: () => Promise<unknown>;
}

/**
 * Streams a run as LangGraph clients read it: `metadata` first (id `0`), then one event per chunk of
 * the modes followed (ids from `1`: the chunk's index in the run's event log, one past, which stays
 * across the run's attempts and replicas; `Last-Event-ID` resumes after it), and `error` if it failed. A client that leaves does not stop the run. The run's hand-overs are followed within the
 * stream (`run_handed_over`/`run_resumed` are not LangGraph events: the next attempt's events follow).
 * Chunks that stop before the run's end (this replica shutting down) cut the connection instead of
 * sending `end`: the SDK reconnects at `Location` with `Last-Event-ID`, on a replica that follows on.
 */
export async function streamRun(reply: FastifyReply, { runId, attempt, chunks, modes, announce, sse: options, onDisconnect }: RunStreamOptions): Promise<void> {
  const sse = openSseStream(reply, options);
  let finished = false;
  if (onDisconnect) {
    reply.raw.once("close", () => {
      if (finished) return;
      onDisconnect().catch((error: unknown) => reply.log.warn({ err: error, runId }, "the run whose client left was not cancelled"));
    });
  }
  try {
    if (announce) sse.sendEvent("metadata", METADATA_EVENT_ID, { run_id: runId, attempt });
    let ended = false;
    for await (const chunk of chunks) {
      ended = endsChunkStream(chunk);
      const event = sseEventOf(chunk, modes);
      if (event && !sse.sendEvent(event.event, runStreamEventId(chunk.index), event.data)) return;
    }
    finished = true;
    // A stream cut short is aborted, so the client reconnects; one that ended just closes, as the LangGraph JS server's do.
    if (!ended) return sse.abort();
  } catch (error) {
    // Its source failed (the database unavailable for too long): the run goes on, so the client is made
    // to reconnect with Last-Event-ID, as when this replica stops, rather than see a stream that just ends.
    if (sse.closed) return;
    reply.log.warn({ err: error, runId }, "a run's stream stopped before the run ended");
    sse.abort();
  } finally {
    sse.end();
  }
}
