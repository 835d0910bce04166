/** One server-sent event as the gateway frames it: `id: …` (optional) and `data: {"type", "data"}`. */
export interface SseEvent {
  id?: string;
  type: string;
  data: unknown;
}

/** The events of a complete SSE body, heartbeat comments left out. */
export function parseSse(body: string): SseEvent[] {
  return body
    .split("\n\n")
    .filter((frame) => frame.includes("data: "))
    .map((frame) => {
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const payload = JSON.parse(/^data: (.*)$/m.exec(frame)![1]) as { type: string; data: unknown };
      return { ...(id === undefined ? {} : { id }), type: payload.type, data: payload.data };
    });
}
