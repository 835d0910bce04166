export * from "./headers";
export * from "./chunks";
export * from "./stores";
export * from "./storeKinds";
export * from "./outboxTopics";
export * from "./pagination";
export type { ErrorCode } from "./errorCodes";
export * from "./webAppEmbed";
