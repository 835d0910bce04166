/** A conversation with one assistant; its state lives in the checkpointer. */
export interface Thread {
  id: string;
  tenantId: string;
  assistantId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateThreadRequest {
  id?: string;
  assistantId: string;
  metadata?: Record<string, unknown>;
}

export interface ThreadStore {
  createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread>;
  getThread(tenantId: string, threadId: string): Promise<Thread | null>;
  listThreads(tenantId: string, filter?: { assistantId?: string; limit?: number; offset?: number }): Promise<Thread[]>;
  updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>): Promise<Thread | null>;
  deleteThread(tenantId: string, threadId: string): Promise<boolean>;
}
