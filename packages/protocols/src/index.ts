export * from "./headers";
export * from "./chunks";
export * from "./stores";
export * from "./outboxTopics";
export * from "./pagination";
export type { ErrorCode } from "./errorCodes";
