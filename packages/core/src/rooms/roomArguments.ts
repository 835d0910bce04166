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
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every room store, so bad input is refused alike and before any write. Only known
// keys are kept, so a store never persists stray input.

const AUTHOR_TYPES = ["user", "agent", "system"] as const satisfies readonly ProjectRoomAuthorType[];

export const requireRoomId = (roomId: unknown): string => parseStoreArgument(rules.text, roomId, "Room id");

const scopeSchema = z.object({ tenantId: rules.text, projectId: rules.text, roomId: rules.text }, { error: "must be an object" });

export const validateRoomScope = (scope: ProjectRoomScope): ProjectRoomScope => parseStoreArgument(scopeSchema, scope, "Room scope");

const roomSchema = z.object({ id: rules.text.default(() => randomUUID()), name: rules.text }, { error: "must be an object" });

export const validateCreateRoom = (request: CreateProjectRoomRequest): { id: string; name: string } => parseStoreArgument(roomSchema, request, "Room");

/** A room message's content: what the API takes and what every store keeps. */
export const roomMessageContent = rules.text.max(ROOM_MESSAGE_MAX_CHARS, `must be at most ${ROOM_MESSAGE_MAX_CHARS} characters`);

const messageSchema = z.object(
  {
    authorType: z.enum(AUTHOR_TYPES, { error: `must be one of ${AUTHOR_TYPES.join(", ")}` }),
    authorId: rules.text,
    content: roomMessageContent,
    idempotencyKey: rules.text.optional(),
  },
  { error: "must be an object" },
);

export const validateAppendMessage = (request: AppendProjectRoomMessageRequest): AppendProjectRoomMessageRequest =>
  definedFields(parseStoreArgument(messageSchema, request, "Room message"));

/**
 * A room's history pages by sequence alone (unique in the room, and its commit order) on every store,
 * so a reader that knows a sequence (an SSE event's id) can read on from it.
 */
export const ROOM_MESSAGE_PAGE_SHAPE: PageKeyShape = ["integer"];
export const roomMessagePageKey = (message: Pick<ProjectRoomMessage, "sequence">): PageKey => [message.sequence];

/** The cursor of the messages after the one with `sequence` (0: the whole history). */
export const roomMessageCursor = (sequence: number): string => encodePageCursor([sequence]);
