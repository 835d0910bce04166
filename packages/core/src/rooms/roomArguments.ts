import { randomUUID } from "node:crypto";
import type {
  AppendProjectRoomMessageRequest,
  CreateProjectRoomRequest,
  ProjectRoomAuthorType,
  ProjectRoomMessage,
  ProjectRoomScope,
} from "@axiom-lattice/protocols";
import { ROOM_MESSAGE_MAX_CHARS } from "../defaults";
import { type PageKey, type PageKeyShape, encodePageCursor } from "../stores/keysetPages";
import { StoreArgumentError, requireObject, requireTenantId, requireText } from "../stores/storeArguments";
import { requireProjectId } from "../projects/projectArguments";

// Checks shared by every room store, so bad input is refused alike and before any write. Only known
// keys are kept, so a store never persists stray input.

const AUTHOR_TYPES: readonly ProjectRoomAuthorType[] = ["user", "agent", "system"];

export const requireRoomId = (roomId: unknown): string => requireText(roomId, "Room id");

export function validateRoomScope(scope: ProjectRoomScope): ProjectRoomScope {
  const checked = requireObject(scope, "Room scope");
  return { tenantId: requireTenantId(checked.tenantId), projectId: requireProjectId(checked.projectId), roomId: requireRoomId(checked.roomId) };
}

export function validateCreateRoom(request: CreateProjectRoomRequest): { id: string; name: string } {
  const checked = requireObject(request, "Room");
  return { id: checked.id === undefined ? randomUUID() : requireRoomId(checked.id), name: requireText(checked.name, "Room name") };
}

export function validateAppendMessage(request: AppendProjectRoomMessageRequest): AppendProjectRoomMessageRequest {
  const checked = requireObject(request, "Room message");
  if (!AUTHOR_TYPES.includes(checked.authorType as ProjectRoomAuthorType)) {
    throw new StoreArgumentError(`Room message authorType must be one of ${AUTHOR_TYPES.join(", ")}`);
  }
  const content = requireText(checked.content, "Room message content");
  if (content.length > ROOM_MESSAGE_MAX_CHARS) throw new StoreArgumentError(`Room message content must be at most ${ROOM_MESSAGE_MAX_CHARS} characters`);
  return {
    authorType: checked.authorType as ProjectRoomAuthorType,
    authorId: requireText(checked.authorId, "Room message authorId"),
    content,
    ...(checked.idempotencyKey === undefined ? {} : { idempotencyKey: requireText(checked.idempotencyKey, "Room message idempotencyKey") }),
  };
}

/**
 * A room's history pages by sequence alone (unique in the room, and its commit order) on every store,
 * so a reader that knows a sequence (an SSE event's id) can read on from it.
 */
export const ROOM_MESSAGE_PAGE_SHAPE: PageKeyShape = ["integer"];
export const roomMessagePageKey = (message: Pick<ProjectRoomMessage, "sequence">): PageKey => [message.sequence];

/** The cursor of the messages after the one with `sequence` (0: the whole history). */
export const roomMessageCursor = (sequence: number): string => encodePageCursor([sequence]);
