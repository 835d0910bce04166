/**
 * Kinds of store the registry knows. `taskWorkItem` and `mcp` are interfaces only, for the tasks and
 * MCP work to implement; the others have an in-memory default and a PostgreSQL implementation.
 */
export const STORE_KINDS = [
  "lease",
  "outbox",
  "threadMessageQueue",
  "schedule",
  "task",
  "taskWorkItem",
  "thread",
  "assistant",
  "project",
  "mcp",
  "projectRoom",
  "projectRoomMessage",
  "checkpoint",
] as const;

export type StoreKind = (typeof STORE_KINDS)[number];
