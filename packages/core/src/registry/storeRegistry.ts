import type { AssistantStore, ErrorCode, ItemStore, LeaseStore, McpServerConfigStore, OutboxStore, PluginSettingStore, ProjectRoomMessageStore, ProjectRoomStore, ProjectStore, ScheduleStorage, StoreKind, TaskStore, ThreadStore } from "@axiom-lattice/protocols";
import type { IMessageQueueStore } from "../queue/messageQueueStore";

/** The interface each store kind implements. */
export interface StoreTypes {
  lease: LeaseStore;
  outbox: OutboxStore;
  schedule: ScheduleStorage;
  thread: ThreadStore;
  assistant: AssistantStore;
  project: ProjectStore;
  task: TaskStore;
  mcp: McpServerConfigStore;
  pluginSetting: PluginSettingStore;
  item: ItemStore;
  projectRoom: ProjectRoomStore;
  projectRoomMessage: ProjectRoomMessageStore;
  threadMessageQueue: IMessageQueueStore;
  checkpoint: object;
}

/** Thrown when a store kind has neither a registered store nor an in-memory default. */
export class StoreNotRegisteredError extends Error {
  readonly code = "STORE_NOT_REGISTERED" satisfies ErrorCode;

  constructor(
    readonly key: string,
    readonly kind: string,
  ) {
    super(`No "${kind}" store is registered under the key "${key}", and "${kind}" has no in-memory default`);
    this.name = "StoreNotRegisteredError";
  }
}

type AnyStore = StoreTypes[StoreKind];

const registered = new Map<string, AnyStore>();
const defaultFactories = new Map<StoreKind, () => AnyStore>();

const slot = (key: string, kind: string) => `${key}\u0000${kind}`;

/** Installs `store` for `kind` under `key` (usually `"default"`), replacing any earlier one. */
export function registerStoreLattice<K extends StoreKind>(key: string, kind: K, store: StoreTypes[K]): void {
  registered.set(slot(key, kind), store);
}

/**
 * The store registered for `kind` under `key`; otherwise, for the `"default"` key, the kind's
 * in-memory default (created once, then kept).
 */
export function getStoreLattice<K extends StoreKind>(key: string, kind: K): StoreTypes[K] {
  const found = registered.get(slot(key, kind));
  if (found) return found as StoreTypes[K];
  const factory = key === "default" ? defaultFactories.get(kind) : undefined;
  if (!factory) throw new StoreNotRegisteredError(key, kind);
  const store = factory() as StoreTypes[K];
  registered.set(slot(key, kind), store);
  return store;
}

/** True when a store (registered or default) is available for `kind` under `key`. */
export function hasStoreLattice(key: string, kind: StoreKind): boolean {
  return registered.has(slot(key, kind)) || (key === "default" && defaultFactories.has(kind));
}

/** Declares the in-memory implementation used when nothing else is registered. */
export function registerDefaultStoreFactory<K extends StoreKind>(kind: K, factory: () => StoreTypes[K]): void {
  defaultFactories.set(kind, factory);
}

/** Forgets every registered store (defaults are created anew on next use). For tests. */
export function resetStoreLattice(): void {
  registered.clear();
}
