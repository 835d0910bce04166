// Server-sent event frames, from a complete body or read as they arrive. No test framework here:
// benchmark scripts import this file through its own export (`@axiom-lattice/testing/sse`).

/** One frame of a stream: its `id:` line, its `data:` lines joined by newlines, or a comment (a heartbeat). */
export interface SseRawFrame {
  id?: string;
  data?: string;
  comment?: string;
}

/** One frame (the text between two blank lines). */
export function parseSseFrame(block: string): SseRawFrame {
  const frame: SseRawFrame = {};
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) {
      frame.comment = line.slice(1).trim();
      continue;
    }
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") frame.id = value;
    else if (field === "data") data.push(value);
  }
  if (data.length) frame.data = data.join("\n");
  return frame;
}

/** Each frame of an SSE body (a fetch response's) as soon as it is complete; none without a body. */
export async function* sseFrames(body: AsyncIterable<Uint8Array> | null): AsyncGenerator<SseRawFrame> {
  if (!body) return;
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of body) {
    buffered += decoder.decode(bytes, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      yield parseSseFrame(block);
    }
  }
}
