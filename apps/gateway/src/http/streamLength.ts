import type { ServerResponse } from "node:http";

/** How much a stream has written: its events (heartbeats aside) and its body's bytes (heartbeats included). */
export interface StreamLength {
  events: number;
  bytes: number;
}

const lengths = new WeakMap<ServerResponse, StreamLength>();

/** A stream starts answering on `response`: its length, counted from nothing by the stream's writer. */
export function countStreamLength(response: ServerResponse): StreamLength {
  const length = { events: 0, bytes: 0 };
  lengths.set(response, length);
  return length;
}

/** What the stream answering on `response` has written so far; undefined for a response that is no stream. */
export const streamLengthOf = (response: ServerResponse): StreamLength | undefined => lengths.get(response);
