import type { Page, PageRequest } from "../page";

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
  /** A page of the project's rooms, in creation order (ties by id); empty for no project. */
  listRooms(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectRoom>>;
}

export type ProjectRoomAuthorType = "user" | "agent" | "system";

export interface ProjectRoomMessage {
  id: string;
  tenantId: string;
  projectId: string;
  roomId: string;
  /**
   * The message's place in its room's history: 1, 2, 3… in commit order, without a gap (a retried
   * idempotency key takes none), so paging never skips a message committed later and a reader that
   * sees a gap knows it missed a message.
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

/** Messages of rooms, every call scoped to one tenant's room. */
export interface ProjectRoomMessageStore {
  /** `null` when the room does not exist; with an idempotency key already used in the room, the stored message. */
  appendMessage(scope: ProjectRoomScope, request: AppendProjectRoomMessageRequest): Promise<AppendedProjectRoomMessage | null>;
  /**
   * A page of the room's history, ascending by `sequence`; empty for no room. A page's cursor names
   * the sequence it follows, so every store takes core's `roomMessageCursor(sequence)` as the cursor
   * of the messages after that one.
   */
  listMessages(scope: ProjectRoomScope, page: PageRequest): Promise<Page<ProjectRoomMessage>>;
  /** The `sequence` of the room's latest committed message: every message up to it is readable. 0 without messages or room. */
  lastSequence(scope: ProjectRoomScope): Promise<number>;
}
