export { adminDatabaseUrl, createTestDatabase, type TestDatabase } from "./testDatabase";
export { eventually, type EventuallyOptions } from "./eventually";
export { leaseStoreContract } from "./leaseStoreContract";
export { messageQueueStoreContract, type MessageQueueStoreHarness } from "./messageQueueStoreContract";
export { threadStoreContract } from "./threadStoreContract";
export { assistantStoreContract } from "./assistantStoreContract";
export { scheduleStorageContract } from "./scheduleStorageContract";
export { outboxStoreContract, type OutboxStoreHarness } from "./outboxStoreContract";
export { parseSse, type SseEvent } from "./sse";
