import type { ProjectRoomMessage, ProjectRoomScope } from "@axiom-lattice/protocols";
import { toRoomMessageView, toRoomScopeView } from "./roomViews";

/** The event type a posted message publishes into its room. */
export const MESSAGE_CREATED_EVENT = "message.created";

/** What a publisher says happened in a room; the broker adds the id, scope and time. */
export interface ProjectRoomEventDraft {
  /** Business event type, e.g. `message.created`. */
  type: string;
  /** Any JSON value. */
  data?: unknown;
}

/** One room event; subscribers receive its serialized form (snake_case: {@link serializeRoomEvent}). */
export interface ProjectRoomEvent {
  /**
   * A message's event: its `sequence` in the room, a place in the room's history that every replica
   * can resume after. Any other event: `<epoch>-<n>` of the broker that published it, an identity only.
   */
  id: string;
  type: string;
  scope: ProjectRoomScope;
  data: unknown;
  /** ISO time: of the message for a message's event, of publication for any other. */
  createdAt: string;
}

const BROKER_EVENT_ID = /^[a-z0-9]{1,32}-\d{1,16}$/;
const MESSAGE_EVENT_ID = /^\d{1,16}$/;

export const roomEventId = (epoch: string, sequence: number): string => `${epoch}-${sequence}`;

/** The room sequence a message event's id names; `undefined` for any other id. */
export function messageSequenceOf(id: string): number | undefined {
  if (!MESSAGE_EVENT_ID.test(id)) return undefined;
  const sequence = Number(id);
  return Number.isSafeInteger(sequence) ? sequence : undefined;
}

/** True for an id some room event has: a message's sequence or a broker's `<epoch>-<n>`. */
export const isRoomEventId = (id: string): boolean => messageSequenceOf(id) !== undefined || BROKER_EVENT_ID.test(id);

/**
 * The event telling that `message` was posted. Built from the stored message alone, so the live event
 * and a replay of it from the store are the same bytes on every replica.
 */
export const messageCreatedEvent = (message: ProjectRoomMessage): ProjectRoomEvent => ({
  id: String(message.sequence),
  type: MESSAGE_CREATED_EVENT,
  scope: { tenantId: message.tenantId, projectId: message.projectId, roomId: message.roomId },
  data: toRoomMessageView(message),
  createdAt: message.createdAt.toISOString(),
});

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;

/** True when `scope` names a room: three non-empty strings. */
export function isRoomScope(scope: unknown): scope is ProjectRoomScope {
  const checked = scope as Partial<ProjectRoomScope> | null;
  return typeof checked === "object" && checked !== null && isText(checked.tenantId) && isText(checked.projectId) && isText(checked.roomId);
}

/** The one key of a room in maps: no two scopes share it, whatever their parts contain. */
export const roomKey = ({ tenantId, projectId, roomId }: ProjectRoomScope): string => JSON.stringify([tenantId, projectId, roomId]);

/**
 * The canonical serialized form, as clients and peers read it: `{id, type, scope: {tenant_id,
 * project_id, room_id}, data, created_at}` in this order, one line (JSON escapes newlines), safe as SSE
 * data. `data` is the publisher's, as it gave it.
 */
export const serializeRoomEvent = ({ id, type, scope, data, createdAt }: ProjectRoomEvent): string =>
  JSON.stringify({ id, type, scope: toRoomScopeView(scope), data, created_at: createdAt });

/** Reads a serialized event from anywhere (a peer's outbox row); `undefined` when it is not one. */
export function parseRoomEvent(serialized: string): ProjectRoomEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(serialized);
  } catch {
    return undefined;
  }
  const event = value as { id?: unknown; type?: unknown; scope?: Record<string, unknown> | null; data?: unknown; created_at?: unknown } | null;
  if (typeof event !== "object" || event === null || !isText(event.id) || !isRoomEventId(event.id)) return undefined;
  const scope = typeof event.scope === "object" && event.scope !== null ? { tenantId: event.scope.tenant_id, projectId: event.scope.project_id, roomId: event.scope.room_id } : null;
  if (!isText(event.type) || !isRoomScope(scope) || !isText(event.created_at)) return undefined;
  return { id: event.id, type: event.type, scope, data: event.data ?? null, createdAt: event.created_at };
}
