import { OutboxCursorError } from "./outboxErrors";

// A cursor is the pair (txid, id) the log is ordered by, written "<txid>-<id>" in canonical decimal.
// Callers treat it as opaque; stores parse it strictly so a forged or truncated cursor fails loudly
// instead of silently skipping events.
const CURSOR = /^(0|[1-9]\d{0,19})-(0|[1-9]\d{0,18})$/;
const MAX_TXID = 2n ** 64n - 1n; // xid8
const MAX_ID = 2n ** 63n - 1n; // bigint

export interface OutboxPosition {
  txid: bigint;
  id: bigint;
}

/** The position before every event. */
const OUTBOX_START: OutboxPosition = { txid: 0n, id: 0n };

export function encodeOutboxCursor(txid: bigint | string, id: bigint | string): string {
  return `${txid}-${id}`;
}

/** The position a cursor names (`null` → {@link OUTBOX_START}); throws {@link OutboxCursorError}. */
export function decodeOutboxCursor(cursor: unknown): OutboxPosition {
  if (cursor === null) return OUTBOX_START;
  const match = typeof cursor === "string" ? CURSOR.exec(cursor) : null;
  if (!match) throw new OutboxCursorError(cursor);
  const position = { txid: BigInt(match[1]), id: BigInt(match[2]) };
  if (position.txid > MAX_TXID || position.id > MAX_ID) throw new OutboxCursorError(cursor);
  return position;
}

/** Orders positions as the log does: by txid, then id. */
export function compareOutboxPositions(a: OutboxPosition, b: OutboxPosition): number {
  if (a.txid !== b.txid) return a.txid < b.txid ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}
