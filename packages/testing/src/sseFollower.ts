import { eventually } from "./eventually";
import { type SseEvent, sseEventsOf } from "./sse";
import { sseFrames } from "./sseFrames";

/** A live server-sent event stream being read: the events so far, in arrival order. */
export interface SseFollower {
  /** The response's headers (which replica answered, say). */
  readonly headers: Headers;
  readonly events: SseEvent[];
  /** Events of `type` received so far. */
  ofType(type: string): SseEvent[];
  /** Settles once the stream ended (the server closed it, or {@link close}). */
  readonly ended: Promise<void>;
  /** Leaves the stream (the server sees the client go) and waits for the reading to stop. */
  close(): Promise<void>;
}

/**
 * Opens `url` as an SSE stream and keeps reading it in the background. Resolves once an event of
 * `readyType` arrived (a stream that announces its subscription), so what happens after it is seen;
 * without `readyType`, once the head arrived (a stream that subscribes before it answers).
 */
export function followSse(url: string, headers: Record<string, string>, readyType?: string, timeoutMs = 10_000): Promise<SseFollower> {
  return follow(url, { headers }, readyType, timeoutMs);
}

/** As {@link followSse}, for a stream answered to a POST of `body` as JSON (a run's), once its head arrived. */
export function followPostedSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseFollower> {
  return follow(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

async function follow(url: string, init: RequestInit, readyType?: string, timeoutMs = 10_000): Promise<SseFollower> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  const events: SseEvent[] = [];
  const reading = (async () => {
    try {
      for await (const event of sseEventsOf(sseFrames(response.body))) events.push(event);
    } catch {
      // Aborted by close(), or the server went away: the events read so far stay.
    }
  })();
  const ofType = (type: string) => events.filter((event) => event.type === type);
  const follower: SseFollower = {
    headers: response.headers,
    events,
    ofType,
    ended: reading,
    async close() {
      controller.abort();
      await reading;
    },
  };
  if (readyType === undefined) return follower;
  try {
    await eventually(`a "${readyType}" event from ${url}`, () => ofType(readyType).length > 0, { timeoutMs });
  } catch (error) {
    await follower.close();
    throw error;
  }
  return follower;
}
