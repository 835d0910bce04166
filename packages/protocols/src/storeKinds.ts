/**
 * Kinds of store the registry knows. Each has an in-memory default and a PostgreSQL implementation.
 */
export const STORE_KINDS = [
  "lease",
  "outbox",
  "threadMessageQueue",
  "schedule",
  "task",
  "thread",
  "assistant",
  "project",
  "mcp",
  "pluginSetting",
  "projectRoom",
  "projectRoomMessage",
  "item",
  "checkpoint",
] as const;

export type StoreKind = (typeof STORE_KINDS)[number];
