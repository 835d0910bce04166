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

/** Which of a tenant's threads to list, in which order, which page. */
export interface ThreadFilter {
  assistantId?: string;
  /** Only threads whose metadata contains this object (as PostgreSQL's jsonb `@>` judges). */
  metadata?: Record<string, unknown>;
  /** Only threads with one of these ids. */
  ids?: string[];
  /** Default `createdAt`; ties are broken by id. */
  sortBy?: "createdAt" | "updatedAt" | "id";
  /** Default `desc`. */
  sortOrder?: "asc" | "desc";
  /** 1 to 1,000; default 100. */
  limit?: number;
  offset?: number;
}

export interface ThreadStore {
  createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread>;
  getThread(tenantId: string, threadId: string): Promise<Thread | null>;
  /** The tenant's threads matching `filter`, newest first unless it says otherwise. */
  listThreads(tenantId: string, filter?: ThreadFilter): Promise<Thread[]>;
  updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>): Promise<Thread | null>;
  deleteThread(tenantId: string, threadId: string): Promise<boolean>;
}
