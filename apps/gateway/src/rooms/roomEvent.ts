import type { ProjectRoomScope } from "@axiom-lattice/protocols";

/** What a publisher says happened in a room; the broker adds the id, scope and time. */
export interface ProjectRoomEventDraft {
  /** Business event type, e.g. `message.created`. */
  type: string;
  /** Any JSON value. */
  data?: unknown;
}

/** One room event as subscribers receive it (the JSON of its serialized form). */
export interface ProjectRoomEvent {
  /** `<epoch>-<sequence>` of the broker that published it: `Last-Event-ID` names a position in that broker's ring. */
  id: string;
  type: string;
  scope: ProjectRoomScope;
  data: unknown;
  /** ISO time of publication. */
  createdAt: string;
}

const EVENT_ID = /^([a-z0-9]{1,32})-(\d{1,16})$/;

export const roomEventId = (epoch: string, sequence: number): string => `${epoch}-${sequence}`;

/** The broker epoch and sequence an event id names; `undefined` for anything else. */
export function parseRoomEventId(id: string): { epoch: string; sequence: number } | undefined {
  const match = EVENT_ID.exec(id);
  if (!match) return undefined;
  const sequence = Number(match[2]);
  return Number.isSafeInteger(sequence) ? { epoch: match[1], sequence } : undefined;
}

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/** True when `scope` names a room: three non-empty strings. */
export function isRoomScope(scope: unknown): scope is ProjectRoomScope {
  const checked = scope as Partial<ProjectRoomScope> | null;
  return typeof checked === "object" && checked !== null && isText(checked.tenantId) && isText(checked.projectId) && isText(checked.roomId);
}

/** The one key of a room in maps: no two scopes share it, whatever their parts contain. */
export const roomKey = ({ tenantId, projectId, roomId }: ProjectRoomScope): string => JSON.stringify([tenantId, projectId, roomId]);

/** The canonical serialized form: fixed keys and order, one line (JSON escapes newlines), safe as SSE data. */
export const serializeRoomEvent = ({ id, type, scope, data, createdAt }: ProjectRoomEvent): string =>
  JSON.stringify({ id, type, scope: { tenantId: scope.tenantId, projectId: scope.projectId, roomId: scope.roomId }, data, createdAt });

/** Reads a serialized event from anywhere (a peer's outbox row); `undefined` when it is not one. */
export function parseRoomEvent(serialized: string): ProjectRoomEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(serialized);
  } catch {
    return undefined;
  }
  const event = value as Partial<ProjectRoomEvent> | null;
  if (typeof event !== "object" || event === null || !isText(event.id) || !parseRoomEventId(event.id)) return undefined;
  if (!isText(event.type) || !isRoomScope(event.scope) || !isText(event.createdAt)) return undefined;
  return { id: event.id, type: event.type, scope: event.scope, data: event.data ?? null, createdAt: event.createdAt };
}
