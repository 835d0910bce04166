import type { FastifyReply } from "fastify";
import { SSE_HEARTBEAT_MS } from "../defaults";
import { logRequestLine } from "./requestLog";
import { countStreamLength } from "./streamLength";
import type { StreamPlace } from "./tenantStreams";

export interface SseStream {
  /** Writes one event `id: <id>\ndata: <json>\n\n` (no id line without an id); false once the client has gone. */
  send(id: string | undefined, data: unknown): boolean;
  /** As {@link send}, with data already serialized as one line of JSON (sent as it is). */
  sendSerialized(id: string | undefined, json: string): boolean;
  /** As {@link send}, naming the event (`event: <name>`), as the LangGraph API's streams do. */
  sendEvent(event: string, id: string | undefined, data: unknown): boolean;
  /** Settles once the client has taken what was written (at once when nothing waits), or has gone. */
  drained(): Promise<void>;
  readonly closed: boolean;
  end(): void;
  /** Cuts the connection without the stream's clean end: the client sees a broken stream and resumes it elsewhere. */
  abort(): void;
}

export interface SseStreamOptions {
  /** A comment line this often while quiet (default 15 s). */
  heartbeatMs?: number;
  /** Counts the streams open now (the `lattice_sse_subscribers` gauge). */
  subscribers?: { inc(): void; dec(): void };
  /** The tenant's place among its open streams, given back when this one closes, whatever the way. */
  place?: StreamPlace;
}

/** What {@link gatewaySseOptions} reads of a gateway (its context has it). */
export interface SseSettingsSource {
  config: { sseHeartbeatMs: number };
  metrics: { sseSubscribers: NonNullable<SseStreamOptions["subscribers"]> };
}

/** How a gateway's streams are kept: its heartbeat setting, counted in its metrics, holding `place`. */
export const gatewaySseOptions = ({ config, metrics }: SseSettingsSource, place?: StreamPlace): SseStreamOptions => ({
  heartbeatMs: config.sseHeartbeatMs,
  subscribers: metrics.sseSubscribers,
  place,
});

/**
 * Takes over the reply and answers `text/event-stream`. Headers already set on the reply (replica,
 * affinity echo, CORS) are kept, which a plain hijack would drop.
 */
export function openSseStream(reply: FastifyReply, { heartbeatMs = SSE_HEARTBEAT_MS, subscribers, place }: SseStreamOptions = {}): SseStream {
  reply.hijack();
  const raw = reply.raw;
  const kept = Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined);
  raw.writeHead(200, {
    ...Object.fromEntries(kept),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    // nginx would otherwise buffer the stream.
    "x-accel-buffering": "no",
  });
  // Node holds the head until the first body write: a run waiting its turn would look unanswered.
  raw.flushHeaders();
  subscribers?.inc();
  const length = countStreamLength(raw);
  const writeText = (text: string) => {
    length.bytes += Buffer.byteLength(text);
    raw.write(text);
  };
  let closed = false;
  const heartbeat = setInterval(() => {
    if (!closed) writeText(": heartbeat\n\n");
  }, heartbeatMs);
  heartbeat.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    subscribers?.dec();
    place?.();
  };
  raw.on("close", () => {
    close();
    // Fastify logs a response when it finishes; a stream the client left, or this replica cut, never does.
    if (!raw.writableFinished) logRequestLine(reply, { cut: true });
  });
  const write = (event: string | undefined, id: string | undefined, json: string) => {
    if (closed) return false;
    length.events += 1;
    writeText(`${event === undefined ? "" : `event: ${event}\n`}${id === undefined ? "" : `id: ${id}\n`}data: ${json}\n\n`);
    return true;
  };
  const sendSerialized = (id: string | undefined, json: string) => write(undefined, id, json);
  return {
    send: (id, data) => sendSerialized(id, JSON.stringify(data)),
    sendSerialized,
    sendEvent: (event, id, data) => write(event, id, JSON.stringify(data)),
    drained() {
      if (closed || !raw.writableNeedDrain) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          raw.off("drain", done);
          raw.off("close", done);
          resolve();
        };
        raw.on("drain", done);
        raw.on("close", done);
      });
    },
    get closed() {
      return closed;
    },
    end() {
      if (!closed) raw.end();
      close();
    },
    abort() {
      if (!closed) raw.destroy();
      close();
    },
  };
}
