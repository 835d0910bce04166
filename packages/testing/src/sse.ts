import { type SseRawFrame, parseSseFrame } from "./sseFrames";

/** One server-sent event as the gateway frames it: `id: …` (optional) and `data: {"type", "data"}`. */
export interface SseEvent {
  id?: string;
  type: string;
  data: unknown;
}

/** The event a frame with data carries. */
export function sseEventOf(frame: SseRawFrame & { data: string }): SseEvent {
  const payload = JSON.parse(frame.data) as { type: string; data: unknown };
  return { ...(frame.id === undefined ? {} : { id: frame.id }), type: payload.type, data: payload.data };
}

const carriesData = (frame: SseRawFrame): frame is SseRawFrame & { data: string } => frame.data !== undefined;

/** The events of a complete SSE body, heartbeat comments left out. */
export function parseSse(body: string): SseEvent[] {
  return body.split("\n\n").map(parseSseFrame).filter(carriesData).map(sseEventOf);
}

/** The events of frames read as they arrive (see `sseFrames`), heartbeat comments left out. */
export async function* sseEventsOf(frames: AsyncIterable<SseRawFrame>): AsyncGenerator<SseEvent> {
  for await (const frame of frames) if (carriesData(frame)) yield sseEventOf(frame);
}
