import { validateFence, validateItemAddress, validateItemSearch, validateItemWrite, validateNamespaceListing } from "@axiom-lattice/core";
import type { FencedWriteOptions, ItemSearch, ItemStore, NamespaceListing, PutItemOptions, ReadItemOptions, StoredItem } from "@axiom-lattice/protocols";
import { assertHeld, fenceParams } from "../coordination/fenceSql";
import { PgStore } from "../db/pgStore";
import { DELETE_EXPIRED_ITEMS, DELETE_ITEM, GET_ITEM, LIST_NAMESPACES, PUT_ITEM, SEARCH_ITEMS } from "./itemSql";

interface ItemRow {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** Expired items one statement of the sweep removes at most. */
const SWEEP_BATCH = 1_000;

const toItem = (row: ItemRow): StoredItem => ({ namespace: row.namespace, key: row.key, value: row.value, createdAt: row.created_at, updatedAt: row.updated_at });

/**
 * Past every namespace that begins with `prefix`: its last label followed by the highest code point.
 * None for the empty prefix, which every namespace begins with.
 */
const prefixBound = (prefix: readonly string[]): string[] | null => (prefix.length === 0 ? null : [...prefix.slice(0, -1), `${prefix.at(-1)}\u{10FFFF}`]);

/** {@link ItemStore} on `lattice_store_items`; every read and write is scoped to one tenant. */
export class PostgreSQLItemStore extends PgStore implements ItemStore {
  async put(tenantId: string, namespace: string[], key: string, value: Record<string, unknown>, options?: PutItemOptions): Promise<StoredItem> {
    const address = validateItemAddress(tenantId, namespace, key);
    const { json, ttlMinutes } = validateItemWrite(value, options);
    const fence = validateFence(options);
    const [row] = await this.rows<ItemRow>(PUT_ITEM, [address.tenantId, address.namespace, address.key, json, ttlMinutes, ...fenceParams(fence)]);
    assertHeld(row !== undefined, fence);
    return toItem(row!);
  }

  async get(tenantId: string, namespace: string[], key: string, options: ReadItemOptions = {}): Promise<StoredItem | null> {
    const address = validateItemAddress(tenantId, namespace, key);
    const [row] = await this.rows<ItemRow>(GET_ITEM, [address.tenantId, address.namespace, address.key, options.refreshTtl ?? true]);
    return row ? toItem(row) : null;
  }

  async delete(tenantId: string, namespace: string[], key: string, options?: FencedWriteOptions): Promise<boolean> {
    const address = validateItemAddress(tenantId, namespace, key);
    const fence = validateFence(options);
    const [row] = await this.rows<{ fence_holds: boolean; live: boolean }>(DELETE_ITEM, [address.tenantId, address.namespace, address.key, ...fenceParams(fence)]);
    assertHeld(row.fence_holds, fence);
    return row.live;
  }

  async search(tenantId: string, request: ItemSearch): Promise<StoredItem[]> {
    const { tenantId: tenant, search } = validateItemSearch(tenantId, request);
    const prefix = search.namespacePrefix;
    const params = [tenant, prefix, prefixBound(prefix), JSON.stringify(search.conditions), search.terms, search.limit, search.offset, search.refreshTtl];
    return (await this.rows<ItemRow>(SEARCH_ITEMS, params)).map(toItem);
  }

  async listNamespaces(tenantId: string, request?: NamespaceListing): Promise<string[][]> {
    const { tenantId: tenant, listing } = validateNamespaceListing(tenantId, request);
    const params = [tenant, listing.prefix, listing.suffix, listing.maxDepth, listing.limit, listing.offset];
    return (await this.rows<{ namespace: string[] }>(LIST_NAMESPACES, params)).map((row) => row.namespace);
  }

  async deleteExpired(): Promise<number> {
    await this.initialize();
    let removed = 0;
    for (;;) {
      const { rowCount } = await this.pool.query(DELETE_EXPIRED_ITEMS, [SWEEP_BATCH]);
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < SWEEP_BATCH) return removed;
    }
  }

  private async rows<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    await this.initialize();
    return (await this.pool.query<T>(sql, params)).rows;
  }
}
