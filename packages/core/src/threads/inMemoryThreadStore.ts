import type { CreateThreadRequest, Page, PageRequest, Thread, ThreadFilter, ThreadListFilter, ThreadStore, ThreadUpdateOptions } from "@axiom-lattice/protocols";
import { pageOfSorted } from "../stores/keysetPages";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId, requireText } from "../stores/storeArguments";
import { validateCreateThread, validateExpiryClaim, validateMetadata, validateThreadListFilter, validateThreadTtl } from "./threadArguments";

const MINUTE_MS = 60_000;

/** Metadata and config held as JSON text, so callers never share objects with the store. */
export interface StoredThread extends Omit<Thread, "metadata" | "ttlMinutes" | "config"> {
  metadata: string;
  config?: string;
  /** The metadata parsed, for filters to read: never handed out. */
  parsedMetadata: Record<string, unknown>;
  /**
   * The store's write count when the thread was created and last updated: orders threads stamped
   * within one millisecond as the database's microsecond timestamps order them. Never handed out.
   */
  createdSeq: number;
  updatedSeq: number;
  ttlMinutes: number | null;
  /** Epoch ms; null without a TTL. */
  expiresAt: number | null;
}

export const toThread = ({ expiresAt: _expiresAt, parsedMetadata: _parsed, createdSeq: _created, updatedSeq: _updated, ttlMinutes, config, ...stored }: StoredThread): Thread => ({
  ...stored,
  metadata: JSON.parse(stored.metadata) as Record<string, unknown>,
  ...(config === undefined ? {} : { config: JSON.parse(config) as Record<string, unknown> }),
  createdAt: new Date(stored.createdAt.getTime()),
  updatedAt: new Date(stored.updatedAt.getTime()),
  ...(ttlMinutes === null ? {} : { ttlMinutes }),
});

/** The thread was used now: its TTL restarts. */
const rearm = (stored: StoredThread, now: number) => {
  stored.expiresAt = stored.ttlMinutes === null ? null : now + stored.ttlMinutes * MINUTE_MS;
};

/** The order of two stored threads by `key`, ties within a millisecond broken by write order. */
export const compareBy = (a: StoredThread, b: StoredThread, key: NonNullable<ThreadFilter["sortBy"]>) => {
  if (key === "id") return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  const seq = key === "createdAt" ? "createdSeq" : "updatedSeq";
  return a[key].getTime() - b[key].getTime() || a[seq] - b[seq];
};

/**
 * Where a thread sits in the newest-first list: its creation time and write count, negated so that
 * the list's order is the keys' ascending order.
 */
const newestFirstKey = (stored: StoredThread) => [-stored.createdAt.getTime(), -stored.createdSeq];

/** {@link ThreadStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryThreadStore implements ThreadStore {
  /** Per tenant, threads in creation order. */
  private readonly tenants = new Map<string, Map<string, StoredThread>>();
  private writes = 0;

  async createThread(tenantId: string, request: CreateThreadRequest): Promise<Thread> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateThread(request);
    const threads = this.tenants.get(tenant) ?? new Map<string, StoredThread>();
    if (threads.has(valid.id)) throw new RecordExistsError("thread", tenant, valid.id);
    const now = new Date();
    const seq = ++this.writes;
    const stored: StoredThread = {
      ...valid,
      parsedMetadata: JSON.parse(valid.metadata) as Record<string, unknown>,
      tenantId: tenant,
      createdAt: now,
      updatedAt: now,
      createdSeq: seq,
      updatedSeq: seq,
      expiresAt: null,
    };
    rearm(stored, now.getTime());
    threads.set(valid.id, stored);
    this.tenants.set(tenant, threads);
    return toThread(stored);
  }

  async getThread(tenantId: string, threadId: string): Promise<Thread | null> {
    const stored = this.find(tenantId, threadId);
    return stored ? toThread(stored) : null;
  }

  async listThreads(tenantId: string, page: PageRequest, filter?: ThreadListFilter): Promise<Page<Thread>> {
    const tenant = requireTenantId(tenantId);
    const { assistantId } = validateThreadListFilter(filter);
    const newestFirst = [...(this.tenants.get(tenant)?.values() ?? [])]
      .filter((stored) => assistantId === undefined || stored.assistantId === assistantId)
      .sort((a, b) => compareBy(b, a, "createdAt"));
    const found = pageOfSorted(newestFirst, page, ["integer", "integer"], newestFirstKey);
    return { items: found.items.map(toThread), nextCursor: found.nextCursor };
  }

  async updateThread(tenantId: string, threadId: string, metadata: Record<string, unknown>, options: ThreadUpdateOptions = {}): Promise<Thread | null> {
    const stored = this.find(tenantId, threadId);
    const patch = JSON.parse(validateMetadata(metadata)) as Record<string, unknown>;
    const ttlMinutes = validateThreadTtl(options.ttlMinutes);
    const config = options.config === undefined ? undefined : validateMetadata(options.config, "Thread config");
    if (!stored) return null;
    if (config !== undefined) stored.config = config;
    stored.parsedMetadata = { ...stored.parsedMetadata, ...patch };
    stored.metadata = JSON.stringify(stored.parsedMetadata);
    stored.updatedAt = new Date();
    stored.updatedSeq = ++this.writes;
    if (ttlMinutes !== null) stored.ttlMinutes = ttlMinutes;
    rearm(stored, stored.updatedAt.getTime());
    return toThread(stored);
  }

  async touchThread(tenantId: string, threadId: string): Promise<boolean> {
    const stored = this.find(tenantId, threadId);
    if (!stored || stored.ttlMinutes === null) return false;
    rearm(stored, Date.now());
    return true;
  }

  async claimExpiredThreads(limit: number, claimMs: number): Promise<Thread[]> {
    const claim = validateExpiryClaim(limit, claimMs);
    const now = Date.now();
    const expired = [...this.tenants.values()]
      .flatMap((threads) => [...threads.values()])
      .filter((stored) => stored.expiresAt !== null && stored.expiresAt <= now)
      .sort((a, b) => a.expiresAt! - b.expiresAt!)
      .slice(0, claim.limit);
    for (const stored of expired) stored.expiresAt = now + claim.claimMs;
    return expired.map(toThread);
  }

  async deleteThread(tenantId: string, threadId: string): Promise<boolean> {
    const tenant = requireTenantId(tenantId);
    return this.tenants.get(tenant)?.delete(requireText(threadId, "Thread id")) ?? false;
  }

  /**
   * The tenant's threads as stored, in creation order: what the in-memory LangGraph read model reads.
   * Not a {@link ThreadStore} method; a caller copies out what it hands on ({@link toThread}).
   */
  storedThreads(tenantId: string): StoredThread[] {
    return [...(this.tenants.get(tenantId)?.values() ?? [])];
  }

  private find(tenantId: string, threadId: string): StoredThread | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireText(threadId, "Thread id"));
  }
}
