import { HttpError } from "../http/errors";

// A run's SSE events carry ids `<message_id>:<index>`; message ids never contain ':' (see ids.ts).
const EVENT_ID = /^([A-Za-z0-9._-]{1,128}):(\d{1,16})$/;

/** The SSE id of a message's chunk. */
export const streamEventId = (messageId: string, index: number): string => `${messageId}:${index}`;

/** A stream position a client names: the message, and the last chunk index it received. */
export interface StreamPosition {
  messageId: string;
  index: number;
}

/** Reads a `Last-Event-ID` header; anything but an id this gateway sent is a 400 `INVALID_REQUEST`. */
export function parseStreamEventId(value: string): StreamPosition {
  const match = EVENT_ID.exec(value);
  const index = match ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isSafeInteger(index)) {
    throw new HttpError("INVALID_REQUEST", `Invalid Last-Event-ID header: expected <message_id>:<index> as the stream sent it, got ${JSON.stringify(value.slice(0, 300))}`);
  }
  return { messageId: match[1], index };
}
