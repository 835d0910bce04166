// Server-sent events of a fetch response, yielded as they arrive (the gateway streams runs this way).

export interface SseEvent {
  id?: string;
  data: string;
}

/** Each event with a `data:` field; comments (heartbeats) and events without data are skipped. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of response.body) {
    buffered += decoder.decode(bytes, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = parseEvent(block);
      if (event) yield event;
    }
  }
}

function parseEvent(block: string): SseEvent | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { id, data: data.join("\n") } : undefined;
}
