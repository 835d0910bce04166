import { InMemoryAssistantStore } from "./assistants/inMemoryAssistantStore";
import { InMemoryItemStore } from "./items/inMemoryItemStore";
import { InMemoryLeaseStore } from "./coordination/inMemoryLeaseStore";
import { InMemoryMcpServerConfigStore } from "./mcp/inMemoryMcpServerConfigStore";
import { InMemoryPluginSettingStore } from "./plugins/inMemoryPluginSettingStore";
import { InMemoryOutboxStore } from "./outbox/inMemoryOutboxStore";
import { InMemoryProjectStore } from "./projects/inMemoryProjectStore";
import { InMemoryMessageQueueStore } from "./queue/inMemoryMessageQueueStore";
import { getStoreLattice, registerDefaultStoreFactory } from "./registry/storeRegistry";
import { InMemoryProjectRoomMessageStore } from "./rooms/inMemoryProjectRoomMessageStore";
import { InMemoryProjectRoomStore } from "./rooms/inMemoryProjectRoomStore";
import { MemoryScheduleStorage } from "./schedule/memoryScheduleStorage";
import { InMemoryTaskStore } from "./tasks/inMemoryTaskStore";
import { InMemoryThreadStore } from "./threads/inMemoryThreadStore";

// In-memory stores are the single-process default of every kind that has one.
registerDefaultStoreFactory("lease", () => new InMemoryLeaseStore());
registerDefaultStoreFactory("outbox", () => new InMemoryOutboxStore());
registerDefaultStoreFactory("threadMessageQueue", () => new InMemoryMessageQueueStore());
registerDefaultStoreFactory("thread", () => new InMemoryThreadStore());
registerDefaultStoreFactory("assistant", () => new InMemoryAssistantStore());
registerDefaultStoreFactory("project", () => new InMemoryProjectStore());
registerDefaultStoreFactory("schedule", () => new MemoryScheduleStorage());
registerDefaultStoreFactory("task", () => new InMemoryTaskStore());
registerDefaultStoreFactory("mcp", () => new InMemoryMcpServerConfigStore());
registerDefaultStoreFactory("pluginSetting", () => new InMemoryPluginSettingStore());
registerDefaultStoreFactory("item", () => new InMemoryItemStore());
// Rooms live in the default projects, messages in the default rooms.
registerDefaultStoreFactory("projectRoom", () => new InMemoryProjectRoomStore(getStoreLattice("default", "project")));
registerDefaultStoreFactory("projectRoomMessage", () => new InMemoryProjectRoomMessageStore(getStoreLattice("default", "projectRoom")));
