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

/**
 * Where a resume_stream continues: the body's message and `after`, or a `Last-Event-ID` header. With
 * both, the header must name the same message, and the later of the two positions counts.
 */
export function resumePoint(body: { message_id?: string; after?: number }, lastEventId: string | undefined): StreamPosition {
  if (lastEventId === undefined) {
    if (body.message_id === undefined) throw new HttpError("INVALID_REQUEST", "Invalid request body: message_id: required without a Last-Event-ID header");
    return { messageId: body.message_id, index: body.after ?? -1 };
  }
  const position = parseStreamEventId(lastEventId);
  if (body.message_id !== undefined && body.message_id !== position.messageId) {
    throw new HttpError("INVALID_REQUEST", `The Last-Event-ID header names message ${position.messageId}, the body message ${body.message_id}`);
  }
  // Both say what the client already has (a reconnecting client resends its first body): skip all of it.
  return { messageId: position.messageId, index: Math.max(body.after ?? -1, position.index) };
}
