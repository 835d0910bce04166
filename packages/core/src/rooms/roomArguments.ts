import { randomUUID } from "node:crypto";
import type {
  AppendProjectRoomMessageRequest,
  CreateProjectRoomRequest,
  ListProjectRoomMessagesOptions,
  ProjectRoomAuthorType,
  ProjectRoomScope,
} from "@axiom-lattice/protocols";
import { ROOM_MESSAGE_MAX_CHARS, ROOM_MESSAGE_MAX_PAGE_SIZE, ROOM_MESSAGE_PAGE_SIZE } from "../defaults";
import { StoreArgumentError, requireInteger, requireObject, requireTenantId, requireText } from "../stores/storeArguments";
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

/** The page to read: after a sequence (0 is before the first message) and how many. */
export function validateMessagePage(options: ListProjectRoomMessagesOptions = {}): { after: number; limit: number } {
  const checked = requireObject(options, "Room message page");
  return {
    after: checked.after === undefined ? 0 : requireInteger(checked.after, "Room message page after", 0, Number.MAX_SAFE_INTEGER),
    limit: checked.limit === undefined ? ROOM_MESSAGE_PAGE_SIZE : requireInteger(checked.limit, "Room message page limit", 1, ROOM_MESSAGE_MAX_PAGE_SIZE),
  };
}
