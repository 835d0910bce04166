import type { FastifyReply } from "fastify";
import { gatewayContextOf } from "../context/gatewayContext";
import { SSE_HEARTBEAT_MS } from "../defaults";

export interface SseStream {
  /** Writes one event `id: <id>\ndata: <json>\n\n` (no id line without an id); false once the client has gone. */
  send(id: string | undefined, data: unknown): boolean;
  readonly closed: boolean;
  end(): void;
}

/**
 * Takes over the reply and answers `text/event-stream`. Headers already set on the reply (replica,
 * affinity echo, CORS) are kept, which a plain hijack would drop.
 */
export function openSseStream(reply: FastifyReply, heartbeatMs = SSE_HEARTBEAT_MS): SseStream {
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
  const { sseSubscribers } = gatewayContextOf(reply.server).metrics;
  sseSubscribers.inc();
  let closed = false;
  const heartbeat = setInterval(() => {
    if (!closed) raw.write(": heartbeat\n\n");
  }, heartbeatMs);
  heartbeat.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    sseSubscribers.dec();
  };
  raw.on("close", close);
  return {
    send(id, data) {
      if (closed) return false;
      raw.write(`${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
      return true;
    },
    get closed() {
      return closed;
    },
    end() {
      if (!closed) raw.end();
      close();
    },
  };
}
