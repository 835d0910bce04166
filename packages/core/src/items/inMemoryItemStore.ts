import type { FencedWriteOptions, ItemSearch, ItemStore, NamespaceListing, PutItemOptions, ReadItemOptions, StoredItem } from "@axiom-lattice/protocols";
import { type FenceCheck, assertFenceHolds } from "../coordination/leaseFence";
import { validateItemAddress, validateItemSearch, validateItemWrite, validateNamespaceListing } from "./itemArguments";
import { compareNamespaces, containsTerms, hasLabelsAt, meetsConditions } from "./itemMatching";

interface Entry {
  item: StoredItem;
  ttlMinutes: number | null;
  /** Epoch ms by the store's clock; null: never expires. */
  expiresAt: number | null;
}

export interface InMemoryItemStoreOptions {
  /** The store's clock in epoch milliseconds (tests move it to age items). */
  now?: () => number;
  /** Judges fenced writes (the in-memory lease store); without it, they are refused. */
  fences?: FenceCheck;
}

const MINUTE_MS = 60_000;

const copy = (item: StoredItem): StoredItem => ({ ...item, namespace: [...item.namespace], value: structuredClone(item.value) });

/** {@link ItemStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryItemStore implements ItemStore {
  private readonly tenants = new Map<string, Map<string, Entry>>();
  private readonly now: () => number;
  private readonly fences: FenceCheck | undefined;
  private lastStamp = 0;

  constructor(options: InMemoryItemStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.fences = options.fences;
  }

  async put(tenantId: string, namespace: string[], key: string, value: Record<string, unknown>, options?: PutItemOptions): Promise<StoredItem> {
    const address = validateItemAddress(tenantId, namespace, key);
    const { json, ttlMinutes } = validateItemWrite(value, options);
    assertFenceHolds(this.fences, options);
    const items = this.tenants.get(address.tenantId) ?? new Map<string, Entry>();
    this.tenants.set(address.tenantId, items);
    const slot = JSON.stringify([address.namespace, address.key]);
    const existing = this.live(items.get(slot));
    // Strictly increasing, as the database's timestamps of successive writes are: "most recently updated" is never a tie.
    const stamp = (this.lastStamp = Math.max(this.now(), this.lastStamp + 1));
    const item: StoredItem = {
      namespace: address.namespace,
      key: address.key,
      value: JSON.parse(json) as Record<string, unknown>,
      createdAt: existing?.item.createdAt ?? new Date(stamp),
      updatedAt: new Date(stamp),
    };
    items.set(slot, { item, ttlMinutes, expiresAt: ttlMinutes === null ? null : stamp + ttlMinutes * MINUTE_MS });
    return copy(item);
  }

  async get(tenantId: string, namespace: string[], key: string, options: ReadItemOptions = {}): Promise<StoredItem | null> {
    const address = validateItemAddress(tenantId, namespace, key);
    const entry = this.live(this.tenants.get(address.tenantId)?.get(JSON.stringify([address.namespace, address.key])));
    if (!entry) return null;
    if (options.refreshTtl ?? true) this.refresh(entry);
    return copy(entry.item);
  }

  async delete(tenantId: string, namespace: string[], key: string, options?: FencedWriteOptions): Promise<boolean> {
    const address = validateItemAddress(tenantId, namespace, key);
    assertFenceHolds(this.fences, options);
    const items = this.tenants.get(address.tenantId);
    const slot = JSON.stringify([address.namespace, address.key]);
    const live = this.live(items?.get(slot)) !== undefined;
    items?.delete(slot);
    return live;
  }

  async search(tenantId: string, request: ItemSearch): Promise<StoredItem[]> {
    const { tenantId: tenant, search } = validateItemSearch(tenantId, request);
    const matches = this.liveEntries(tenant)
      .filter(({ item }) => hasLabelsAt(item.namespace, search.namespacePrefix, "start", false))
      .filter(({ item }) => meetsConditions(item.value, search.conditions) && containsTerms(item.value, search.terms))
      .sort((a, b) => b.item.updatedAt.getTime() - a.item.updatedAt.getTime() || compareNamespaces(a.item.namespace, b.item.namespace) || compareNamespaces([a.item.key], [b.item.key]));
    const page = matches.slice(search.offset, search.offset + search.limit);
    if (search.refreshTtl) page.forEach((entry) => this.refresh(entry));
    return page.map((entry) => copy(entry.item));
  }

  async listNamespaces(tenantId: string, request?: NamespaceListing): Promise<string[][]> {
    const { tenantId: tenant, listing } = validateNamespaceListing(tenantId, request);
    const namespaces = new Map<string, string[]>();
    for (const { item } of this.liveEntries(tenant)) {
      if (!hasLabelsAt(item.namespace, listing.prefix, "start", true) || !hasLabelsAt(item.namespace, listing.suffix, "end", true)) continue;
      const listed = listing.maxDepth === null ? item.namespace : item.namespace.slice(0, listing.maxDepth);
      namespaces.set(JSON.stringify(listed), listed);
    }
    return [...namespaces.values()].sort(compareNamespaces).slice(listing.offset, listing.offset + listing.limit).map((namespace) => [...namespace]);
  }

  async deleteExpired(): Promise<number> {
    let removed = 0;
    for (const items of this.tenants.values()) {
      for (const [slot, entry] of items) {
        if (this.live(entry)) continue;
        items.delete(slot);
        removed += 1;
      }
    }
    return removed;
  }

  private live(entry: Entry | undefined): Entry | undefined {
    return entry && (entry.expiresAt === null || entry.expiresAt > this.now()) ? entry : undefined;
  }

  private liveEntries(tenantId: string): Entry[] {
    return [...(this.tenants.get(tenantId)?.values() ?? [])].filter((entry) => this.live(entry));
  }

  private refresh(entry: Entry): void {
    if (entry.ttlMinutes !== null) entry.expiresAt = this.now() + entry.ttlMinutes * MINUTE_MS;
  }
}
