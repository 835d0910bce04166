export * from "./lease";
export * from "./outbox";
export * from "./schedule";
export * from "./thread";
export * from "./assistant";
export * from "./task";
export * from "./room";
export * from "./mcp";
