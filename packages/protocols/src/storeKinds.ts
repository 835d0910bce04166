/** Kinds of store the registry knows; each has an in-memory default and a PostgreSQL implementation. */
export const STORE_KINDS = [
  "lease",
  "outbox",
  "threadMessageQueue",
  "schedule",
  "task",
  "taskWorkItem",
  "thread",
  "assistant",
  "mcp",
  "projectRoom",
  "projectRoomMessage",
  "checkpoint",
] as const;

export type StoreKind = (typeof STORE_KINDS)[number];
