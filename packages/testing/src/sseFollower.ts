import { eventually } from "./eventually";
import { sseFrames } from "./sseFrames";

/** One frame of a live stream as it came: its id line, its data parsed, or a comment (heartbeat). */
export interface SseFrame {
  id?: string;
  data?: unknown;
  comment?: string;
}

/** A stream being read as it arrives: frames so far, a wait for more, and hanging up. */
export interface SseFollower {
  status: number;
  headers: Headers;
  readonly frames: SseFrame[];
  /** The data of the frames that carry data, in order. */
  readonly events: unknown[];
  /** Waits until `check(frames)` holds, failing after `timeoutMs`. */
  until(what: string, check: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Settles when the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/**
 * Opens an SSE stream with `fetch` and reads it as it arrives (unlike `parseSse`, which needs the
 * whole body): for streams that stay open, such as a room's events. A non-2xx answer is returned with
 * no frames; its body is in `errorBody`.
 */
export async function followSse(url: string, headers: Record<string, string> = {}): Promise<SseFollower & { errorBody?: string }> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const frames: SseFrame[] = [];
  const follower = (ended: Promise<void>, errorBody?: string) => ({
    status: response.status,
    headers: response.headers,
    frames,
    get events() {
      return frames.filter((frame) => frame.data !== undefined).map((frame) => frame.data);
    },
    until: (what: string, check: (frames: SseFrame[]) => boolean, timeoutMs = 10_000) => eventually(what, () => check(frames), { timeoutMs }),
    ended,
    close: () => abort.abort(),
    ...(errorBody === undefined ? {} : { errorBody }),
  });
  if (!response.ok || !response.body) return follower(Promise.resolve(), await response.text());
  const body = response.body;
  const ended = (async () => {
    try {
      for await (const { data, ...frame } of sseFrames(body)) frames.push(data === undefined ? frame : { ...frame, data: JSON.parse(data) as unknown });
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  // Read errors surface through `ended`; an unawaited one must not crash the test process.
  ended.catch(() => {});
  return follower(ended);
}
