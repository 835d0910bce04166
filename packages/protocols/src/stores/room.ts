export interface ProjectRoom {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  createdAt: Date;
}

export interface ProjectRoomStore {
  createRoom(tenantId: string, room: { id?: string; projectId: string; name: string }): Promise<ProjectRoom>;
  getRoom(tenantId: string, roomId: string): Promise<ProjectRoom | null>;
  listRooms(tenantId: string, projectId: string): Promise<ProjectRoom[]>;
  deleteRoom(tenantId: string, roomId: string): Promise<boolean>;
}

export interface ProjectRoomMessage {
  id: string;
  tenantId: string;
  roomId: string;
  authorType: "user" | "agent" | "system";
  authorId: string;
  content: string;
  /** Retried posts with the same key store one message. */
  idempotencyKey?: string;
  createdAt: Date;
}

export interface ProjectRoomMessageStore {
  /** Stores the message; with an idempotency key already used in the room, returns the stored one. */
  appendMessage(tenantId: string, message: Omit<ProjectRoomMessage, "id" | "tenantId" | "createdAt"> & { id?: string }): Promise<ProjectRoomMessage>;
  listMessages(tenantId: string, roomId: string, options?: { after?: Date; limit?: number }): Promise<ProjectRoomMessage[]>;
}

/** Identifies a room for realtime events. */
export interface ProjectRoomScope {
  tenantId: string;
  projectId: string;
  roomId: string;
}
