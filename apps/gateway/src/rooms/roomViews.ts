import type { ProjectRoom, ProjectRoomMessage, ProjectRoomScope } from "@axiom-lattice/protocols";
import { z } from "zod";

// The JSON shapes of rooms and their messages (snake_case), shared by the room routes and the room
// events: a message's `message.created` event carries the same object its REST read answers.

export const roomView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    project_id: z.string(),
    name: z.string(),
    created_at: z.date(),
  })
  .meta({ id: "Room" });

export const toRoomView = (room: ProjectRoom): z.input<typeof roomView> => ({
  id: room.id,
  tenant_id: room.tenantId,
  project_id: room.projectId,
  name: room.name,
  created_at: room.createdAt,
});

export const roomMessageView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    project_id: z.string(),
    room_id: z.string(),
    sequence: z.number().int().describe("1, 2, 3… with every message of the room, in commit order: the id of its `message.created` event"),
    author_type: z.enum(["user", "agent", "system"]),
    author_id: z.string(),
    content: z.string(),
    idempotency_key: z.string().optional(),
    created_at: z.date(),
  })
  .meta({ id: "RoomMessage" });

export const toRoomMessageView = (message: ProjectRoomMessage): z.input<typeof roomMessageView> => ({
  id: message.id,
  tenant_id: message.tenantId,
  project_id: message.projectId,
  room_id: message.roomId,
  sequence: message.sequence,
  author_type: message.authorType,
  author_id: message.authorId,
  content: message.content,
  idempotency_key: message.idempotencyKey,
  created_at: message.createdAt,
});

/** A room's scope as events carry it. */
export const toRoomScopeView = (scope: ProjectRoomScope) => ({ tenant_id: scope.tenantId, project_id: scope.projectId, room_id: scope.roomId });
