import type { FencedWriteOptions } from "./lease";

/**
 * One item of a tenant's long-term memory (LangGraph's store): a JSON object under a key, in a
 * namespace of labels such as `["users", "u1"]`.
 */
export interface StoredItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface PutItemOptions extends FencedWriteOptions {
  /** Minutes the item lives after this put (and after each read that refreshes it); absent or null: for ever. */
  ttlMinutes?: number | null;
}

export interface ReadItemOptions {
  /** Restart the time-to-live of what is read (items put with one). Default true, as LangGraph Platform. */
  refreshTtl?: boolean;
}

export interface ItemSearch extends ReadItemOptions {
  /** Items whose namespace begins with these labels (all the tenant's items when empty). */
  namespacePrefix: string[];
  /**
   * Conditions on top-level fields of the value, all of which must hold. Each is a JSON value the
   * field must equal, or operators: `$eq` / `$ne` (JSON equality; a missing field is unequal to
   * everything) and `$gt` / `$gte` / `$lt` / `$lte` (a number; only fields holding numbers compare).
   */
  filter?: Record<string, unknown>;
  /**
   * Text every whitespace-separated word of which must occur in some string of the value, ignoring
   * ASCII case (there is no embedding index: no similarity ranking).
   */
  query?: string;
  /** 1 to 1,000; default 10. */
  limit?: number;
  offset?: number;
}

export interface NamespaceListing {
  /** Namespaces beginning with these labels; a label `*` matches any one label. */
  prefix?: string[];
  /** Namespaces ending with these labels; a label `*` matches any one label. */
  suffix?: string[];
  /** Namespaces cut to their first `maxDepth` labels (then listed once each). */
  maxDepth?: number;
  /** 1 to 1,000; default 100. */
  limit?: number;
  offset?: number;
}

/**
 * Each tenant's long-term memory: items under namespaces, optionally expiring. An expired item is
 * never read, listed or counted, whether or not {@link ItemStore.deleteExpired} has removed it yet.
 * A put replaces the item (last write wins; it keeps its `createdAt`).
 */
export interface ItemStore {
  put(tenantId: string, namespace: string[], key: string, value: Record<string, unknown>, options?: PutItemOptions): Promise<StoredItem>;
  get(tenantId: string, namespace: string[], key: string, options?: ReadItemOptions): Promise<StoredItem | null>;
  /** Resolves to whether a live item was deleted. */
  delete(tenantId: string, namespace: string[], key: string, options?: FencedWriteOptions): Promise<boolean>;
  /** The matching items, most recently updated first (ties by namespace, then key). */
  search(tenantId: string, search: ItemSearch): Promise<StoredItem[]>;
  /** The distinct namespaces of the tenant's items, in order (label by label, by code point). */
  listNamespaces(tenantId: string, listing?: NamespaceListing): Promise<string[][]>;
  /** Removes every tenant's expired items; resolves to how many this call removed (each item is removed by one call only). */
  deleteExpired(): Promise<number>;
}
