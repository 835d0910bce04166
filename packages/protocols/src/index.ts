export * from "./headers";
export * from "./chunks";
export * from "./stores";
export * from "./outboxTopics";
export * from "./page";
export type { ErrorCode } from "./errorCodes";
export * from "./webAppEmbed";
