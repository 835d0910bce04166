import type { Stores } from "@axiom-lattice/protocols";
import { InMemoryApiKeyStore } from "../apiKeys/inMemoryApiKeyStore";
import { InMemoryAssistantStore } from "../assistants/inMemoryAssistantStore";
import { InMemoryLeaseStore } from "../coordination/inMemoryLeaseStore";
import { InMemoryItemStore } from "../items/inMemoryItemStore";
import { InMemoryLangGraphReadModel } from "../langgraph/inMemoryLangGraphReadModel";
import type { Logger } from "../logging/logger";
import { InMemoryMcpServerConfigStore } from "../mcp/inMemoryMcpServerConfigStore";
import { InMemoryModelProviderStore } from "../modelProviders/inMemoryModelProviderStore";
import { InMemoryOutboxStore } from "../outbox/inMemoryOutboxStore";
import { InMemoryPluginSettingStore } from "../plugins/inMemoryPluginSettingStore";
import { InMemoryA2aPushConfigStore } from "../a2a/inMemoryA2aPushConfigStore";
import { InMemoryReplicaPresenceStore } from "../presence/inMemoryReplicaPresenceStore";
import { InMemoryProjectStore } from "../projects/inMemoryProjectStore";
import { InMemoryMessageQueueStore } from "../queue/inMemoryMessageQueueStore";
import { InMemoryProjectRoomMessageStore } from "../rooms/inMemoryProjectRoomMessageStore";
import { InMemoryProjectRoomStore } from "../rooms/inMemoryProjectRoomStore";
import { InMemoryRunEventLog } from "../runs/inMemoryRunEventLog";
import { InMemoryRunTargetReadModel } from "../runs/inMemoryRunTargetReadModel";
import { InMemoryScheduleStore } from "../schedule/inMemoryScheduleStore";
import { InMemoryTaskStore } from "../tasks/inMemoryTaskStore";
import { InMemoryThreadStore } from "../threads/inMemoryThreadStore";
import { InMemoryWebAppStore } from "../webApps/inMemoryWebAppStore";
import { InMemoryUnitOfWork } from "./inMemoryUnitOfWork";

/** Every in-memory store of one process, under the {@link Stores} names pg-stores' bundle uses too. */
export interface InMemoryStores extends Stores {
  /** Also what in-memory checkpointers judge fences with. */
  lease: InMemoryLeaseStore;
  /** Task writes and outbox appends that land together. */
  unitOfWork: InMemoryUnitOfWork;
}

/**
 * Fresh in-memory stores, wired to each other: the lease store judges the fences of the writes runs
 * make under their thread-run leases, rooms belong to the projects store, and so on.
 */
export function createInMemoryStores(options: { logger?: Logger } = {}): InMemoryStores {
  const lease = new InMemoryLeaseStore();
  const fenced = { fences: lease };
  const projects = new InMemoryProjectStore();
  const rooms = new InMemoryProjectRoomStore(projects);
  const tasks = new InMemoryTaskStore(fenced);
  const outbox = new InMemoryOutboxStore({ logger: options.logger });
  const threads = new InMemoryThreadStore();
  const assistants = new InMemoryAssistantStore();
  const runTargets = new InMemoryRunTargetReadModel({ assistants, threads });
  const runEvents = new InMemoryRunEventLog(fenced);
  const queue = new InMemoryMessageQueueStore({ ...fenced, targets: runTargets, runEvents, leases: lease });
  return {
    lease,
    presence: new InMemoryReplicaPresenceStore(),
    outbox,
    queue,
    threads,
    langGraph: new InMemoryLangGraphReadModel({ threads, queue }),
    assistants,
    runTargets,
    modelProviders: new InMemoryModelProviderStore(),
    webApps: new InMemoryWebAppStore(),
    apiKeys: new InMemoryApiKeyStore(),
    projects,
    rooms,
    roomMessages: new InMemoryProjectRoomMessageStore(rooms),
    tasks,
    mcp: new InMemoryMcpServerConfigStore(),
    pluginSettings: new InMemoryPluginSettingStore(),
    items: new InMemoryItemStore(fenced),
    schedules: new InMemoryScheduleStore(),
    runEvents,
    a2aPushConfigs: new InMemoryA2aPushConfigStore(),
    unitOfWork: new InMemoryUnitOfWork({ tasks, outbox }),
  };
}
