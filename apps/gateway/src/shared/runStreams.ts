import type { StreamChunk } from "@axiom-lattice/agent";
import { type ThreadRunScope, isDatabaseUnavailable } from "@axiom-lattice/core";
import { type ErrorCode, MessageChunkTypes, buildAffinityMissChunk } from "@axiom-lattice/protocols";
import type { FastifyInstance, FastifyReply } from "fastify";
import { type SseSettingsSource, type SseStream, gatewaySseOptions, openSseStream } from "../http/sse";
import type { StreamPlace } from "../http/tenantStreams";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import { streamEventId } from "./streamEventIds";

/** What a run's chunk is sent as: its `data`, or `undefined` to leave it out. */
export type ChunkProjection = (chunk: StreamChunk) => unknown;

/** The last event of a stream whose source failed: an error chunk, with no id (it is not the run's). */
function streamStoppedChunk(error: unknown) {
  const unavailable = isDatabaseUnavailable(error);
  const reason = unavailable ? "the database was unavailable for too long" : "of an internal error";
  return {
    type: MessageChunkTypes.ERROR,
    data: {
      code: (unavailable ? "DATABASE_UNAVAILABLE" : "INTERNAL_ERROR") satisfies ErrorCode,
      error: `This stream stopped before the run ended, because ${reason}. The run goes on: resume its stream with POST /api/runs/resume_stream after the last event id received`,
    },
  };
}

/** Every chunk as it is: `{ type, data }`. */
const asIs: ChunkProjection = (chunk) => ({ type: chunk.type, data: chunk.data });

export interface RunStreamsOptions extends SseSettingsSource {
  metrics: SseSettingsSource["metrics"] & Pick<GatewayMetrics, "affinityMisses">;
}

/** How a stream is sent: each chunk as `project` shows it (as it is by default); ended early once `signal` aborts. */
export interface StreamChunksOptions {
  project?: ChunkProjection;
  signal?: AbortSignal;
}

export interface RunStreams {
  /** Sends each chunk with the id `<message_id>:<index>` until the run's stream ends, the client leaves or `signal` aborts. */
  streamChunks(reply: FastifyReply, chunks: AsyncIterable<StreamChunk>, place: StreamPlace, options?: StreamChunksOptions): Promise<void>;
  /** Strict affinity: the one event naming the replica that runs the thread. */
  streamAffinityMiss(reply: FastifyReply, owner: string, scope: ThreadRunScope, messageId: string, place: StreamPlace): void;
}

/**
 * The run streams a route plugin serves. A run's stream follows it wherever it runs, so it ends only
 * with the run: closing the server would wait for each. They end when it starts closing; their
 * clients resume on a replica that stays.
 */
export function runStreams(app: FastifyInstance, options: RunStreamsOptions): RunStreams {
  const open = new Set<SseStream>();
  app.addHook("preClose", async () => {
    for (const sse of open) sse.end();
  });
  return {
    async streamChunks(reply, chunks, place, { project = asIs, signal } = {}) {
      const sse = openSseStream(reply, gatewaySseOptions(options, place));
      open.add(sse);
      const end = () => sse.end();
      signal?.addEventListener("abort", end, { once: true });
      try {
        for await (const chunk of chunks) {
          const data = project(chunk);
          if (data === undefined) continue;
          // A client that left does not cancel the run: it is queued work, resumable with resume_stream.
          if (!sse.send(streamEventId(chunk.messageId, chunk.index), data)) break;
        }
      } catch (error) {
        // A stream closed under it (the replica shutting down): whatever its source does then is nobody's concern.
        if (sse.closed) return;
        // The run goes on; its client is told why its stream stopped, not left with a stream that just ends.
        reply.log.warn({ err: error }, "a run's stream stopped before the run ended");
        sse.send(undefined, streamStoppedChunk(error));
      } finally {
        signal?.removeEventListener("abort", end);
        open.delete(sse);
        sse.end();
      }
    },
    streamAffinityMiss(reply, owner, scope, messageId, place) {
      options.metrics.affinityMisses.inc();
      const sse = openSseStream(reply, gatewaySseOptions(options, place));
      sse.send(undefined, buildAffinityMissChunk(owner, scope.threadId, messageId));
      sse.end();
    },
  };
}
