import type { FencedWriteOptions, RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { type FenceCheck, assertFenceHolds } from "../coordination/leaseFence";

interface LoggedEvent extends RunEvent {
  loggedAt: number;
}

const threadKey = ({ tenantId, assistantId, threadId }: Omit<RunEventRef, "messageId">) => JSON.stringify([tenantId, assistantId, threadId]);

/** {@link RunEventLog} within one process: the same contract as the PostgreSQL store. */
export class InMemoryRunEventLog implements RunEventLog {
  /** Per thread, per message: events in index order. */
  private readonly threads = new Map<string, Map<string, LoggedEvent[]>>();
  private readonly listeners = new Set<(run?: RunEventRef) => void>();

  /** `fences` judges fenced appends (the in-memory lease store); without it, they are refused. */
  constructor(private readonly options: { fences?: FenceCheck } = {}) {}

  async append(run: RunEventRef, events: RunEvent[], options?: FencedWriteOptions): Promise<void> {
    assertFenceHolds(this.options.fences, options);
    const log = this.log(run, true)!;
    const last = log.at(-1)?.index ?? -1;
    const loggedAt = Date.now();
    for (const { type, data, index } of events) {
      // Indexes already logged are kept as they are (the PostgreSQL primary key's ON CONFLICT DO NOTHING).
      if (index <= last && log.some((event) => event.index === index)) continue;
      log.push({ type, data, index, loggedAt });
    }
    if (events.some((event) => event.index < last)) log.sort((a, b) => a.index - b.index);
    const ref = { ...run };
    // Asynchronously, as a notification arrives from the database.
    queueMicrotask(() => {
      for (const listener of this.listeners) listener(ref);
    });
  }

  async read(run: RunEventRef, afterIndex: number, limit: number): Promise<RunEvent[]> {
    const log = this.log(run, false) ?? [];
    return log
      .filter((event) => event.index > afterIndex)
      .slice(0, limit)
      .map(({ type, data, index }) => ({ type, data, index }));
  }

  async lastIndex(run: RunEventRef): Promise<number> {
    return this.log(run, false)?.at(-1)?.index ?? -1;
  }

  async deleteRun(run: RunEventRef): Promise<void> {
    const messages = this.threads.get(threadKey(run));
    messages?.delete(run.messageId);
    if (messages?.size === 0) this.threads.delete(threadKey(run));
  }

  async deleteThread(thread: Omit<RunEventRef, "messageId">): Promise<void> {
    this.threads.delete(threadKey(thread));
  }

  async pruneOlderThan(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const [key, messages] of this.threads) {
      for (const [messageId, log] of messages) {
        const kept = log.filter((event) => event.loggedAt >= cutoff);
        removed += log.length - kept.length;
        if (kept.length === 0) messages.delete(messageId);
        else messages.set(messageId, kept);
      }
      if (messages.size === 0) this.threads.delete(key);
    }
    return removed;
  }

  subscribe(listener: (run?: RunEventRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private log(run: RunEventRef, create: boolean): LoggedEvent[] | undefined {
    const key = threadKey(run);
    let messages = this.threads.get(key);
    if (!messages && create) this.threads.set(key, (messages = new Map()));
    let log = messages?.get(run.messageId);
    if (!log && create) messages!.set(run.messageId, (log = []));
    return log;
  }
}
