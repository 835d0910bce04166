/** Identifies one room of a tenant's project: the key of its messages and of its realtime events. */
export interface ProjectRoomScope {
  tenantId: string;
  projectId: string;
  roomId: string;
}

/** A place in a project where people and agents talk; its messages are kept, its events streamed. */
export interface ProjectRoom {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  createdAt: Date;
}

export interface CreateProjectRoomRequest {
  /** Client-chosen id, unique within the project; generated when absent. */
  id?: string;
  name: string;
}

/** Rooms of projects, every call scoped to one tenant. A room goes with its project. */
export interface ProjectRoomStore {
  /** `null` when the tenant has no such project; throws `ALREADY_EXISTS` when the project has a room with this id. */
  createRoom(tenantId: string, projectId: string, request: CreateProjectRoomRequest): Promise<ProjectRoom | null>;
  getRoom(tenantId: string, projectId: string, roomId: string): Promise<ProjectRoom | null>;
  /** In creation order. */
  listRooms(tenantId: string, projectId: string): Promise<ProjectRoom[]>;
}

export type ProjectRoomAuthorType = "user" | "agent" | "system";

export interface ProjectRoomMessage {
  id: string;
  tenantId: string;
  projectId: string;
  roomId: string;
  /**
   * The message's place in its room's history: 1, 2, 3… in commit order, without a gap (a retried
   * idempotency key takes none), so paging with `after` never skips a message committed later and a
   * reader that sees a gap knows it missed a message.
   */
  sequence: number;
  authorType: ProjectRoomAuthorType;
  authorId: string;
  content: string;
  /** Retried posts with the same key store one message. */
  idempotencyKey?: string;
  createdAt: Date;
}

export interface AppendProjectRoomMessageRequest {
  authorType: ProjectRoomAuthorType;
  authorId: string;
  content: string;
  /** Unique within the room: a second append with it returns the message the first stored. */
  idempotencyKey?: string;
}

export interface AppendedProjectRoomMessage {
  message: ProjectRoomMessage;
  /** False when the idempotency key had stored `message` already (nothing was written). */
  created: boolean;
}

export interface ListProjectRoomMessagesOptions {
  /** Only messages with a greater `sequence` (the last one of the page before). */
  after?: number;
  /** At most this many (default and bound: see the implementation's arguments). */
  limit?: number;
}

/** Messages of rooms, every call scoped to one tenant's room. */
export interface ProjectRoomMessageStore {
  /** `null` when the room does not exist; with an idempotency key already used in the room, the stored message. */
  appendMessage(scope: ProjectRoomScope, request: AppendProjectRoomMessageRequest): Promise<AppendedProjectRoomMessage | null>;
  /** Ascending by `sequence`. */
  listMessages(scope: ProjectRoomScope, options?: ListProjectRoomMessagesOptions): Promise<ProjectRoomMessage[]>;
  /** The `sequence` of the room's latest committed message: every message up to it is readable. 0 without messages or room. */
  lastSequence(scope: ProjectRoomScope): Promise<number>;
}
