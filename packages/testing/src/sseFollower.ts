import { eventually } from "./eventually";

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

function parseFrame(text: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) frame.id = line.slice(4);
    else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6)) as unknown;
  }
  return frame;
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
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of body) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffered.indexOf("\n\n")) !== -1) {
          frames.push(parseFrame(buffered.slice(0, end)));
          buffered = buffered.slice(end + 2);
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  // Read errors surface through `ended`; an unawaited one must not crash the test process.
  ended.catch(() => {});
  return follower(ended);
}
