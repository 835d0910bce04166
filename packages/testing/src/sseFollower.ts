import { eventually } from "./eventually";
import { type SseEvent, parseSse } from "./sse";

/** A live server-sent event stream being read: the events so far, in arrival order. */
export interface SseFollower {
  readonly events: SseEvent[];
  /** Events of `type` received so far. */
  ofType(type: string): SseEvent[];
  /** Leaves the stream (the server sees the client go) and waits for the reading to stop. */
  close(): Promise<void>;
}

/**
 * Opens `url` as an SSE stream and keeps reading it in the background. Resolves once an event of
 * `readyType` arrived (a stream that announces its subscription), so what happens after it is seen.
 */
export async function followSse(url: string, headers: Record<string, string>, readyType: string, timeoutMs = 10_000): Promise<SseFollower> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffered = "";
  const reading = (async () => {
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffered += decoder.decode(chunk.value, { stream: true });
        const end = buffered.lastIndexOf("\n\n");
        if (end === -1) continue;
        events.push(...parseSse(buffered.slice(0, end + 2)));
        buffered = buffered.slice(end + 2);
      }
    } catch {
      // Aborted by close(), or the server went away: the events read so far stay.
    }
  })();
  const ofType = (type: string) => events.filter((event) => event.type === type);
  const follower: SseFollower = {
    events,
    ofType,
    async close() {
      controller.abort();
      await reading;
    },
  };
  try {
    await eventually(`a "${readyType}" event from ${url}`, () => ofType(readyType).length > 0, { timeoutMs });
  } catch (error) {
    await follower.close();
    throw error;
  }
  return follower;
}
