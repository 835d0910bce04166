/** One server-sent event: its id (when it has one) and its data, parsed as JSON. */
export interface SseEvent {
  id?: string;
  data: unknown;
}

/**
 * The events of an SSE body as they arrive (heartbeat comments skipped). EventSource cannot POST nor
 * send an Authorization header, so the page reads its streams through fetch.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined) yield { id: /^id: (.*)$/m.exec(frame)?.[1], data: JSON.parse(data) };
    }
  }
}
