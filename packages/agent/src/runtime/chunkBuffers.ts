import type { MessageChunk } from "@axiom-lattice/protocols";
import { DEFAULT_CHUNK_BUFFER_LIMITS } from "../defaults";
import { KeyedWaiters } from "./keyedWaiters";

/** A chunk as subscribers see it: `index` counts from 0 per message (SSE id `<messageId>:<index>`). */
export interface StreamChunk extends MessageChunk {
  messageId: string;
  index: number;
}

export interface ChunkBufferLimits {
  /** Chunks kept per message; beyond it the oldest are dropped (default 2,000). */
  maxChunksPerMessage: number;
  /** Chunks kept across all messages of the process; ended messages are evicted first (default 20,000). */
  maxTotalChunks: number;
  /** How long an ended message stays replayable (default 5 minutes). */
  retainMs: number;
}


class ChunkLog {
  chunks: StreamChunk[] = [];
  nextIndex = 0;
  ended = false;
  expiry: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly messageId: string) {}

  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Where the chunks after `index` start in `chunks` (in index order; a re-run's ids jump, so not contiguous). */
function positionAfter(chunks: StreamChunk[], index: number): number {
  let low = 0;
  let high = chunks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (chunks[middle].index <= index) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The replay buffers of the messages this process runs: chunks are appended while a message runs,
 * replayed to late subscribers, and dropped `retainMs` after the message ended. Memory is bounded
 * per message and in total; a subscriber that asks for dropped chunks gets the ones still kept.
 */
export class ChunkBuffers {
  private readonly limits: ChunkBufferLimits;
  private readonly logs = new Map<string, ChunkLog>();
  private readonly openWaiters = new KeyedWaiters();
  private total = 0;

  constructor(limits: Partial<ChunkBufferLimits> = {}) {
    this.limits = { ...DEFAULT_CHUNK_BUFFER_LIMITS, ...limits };
  }

  /**
   * Starts (or, for a re-run of the same message, reopens) the buffer under `key`; indexes continue
   * from `firstIndex` at least (where a re-run's events on another replica ended).
   */
  open(key: string, messageId: string, firstIndex = 0): void {
    const log = this.logs.get(key) ?? new ChunkLog(messageId);
    clearTimeout(log.expiry);
    log.ended = false;
    log.nextIndex = Math.max(log.nextIndex, firstIndex);
    // Re-inserting keeps the map in open order, which is the eviction order.
    this.logs.delete(key);
    this.logs.set(key, log);
    this.openWaiters.wake(key);
  }

  /** Appends the chunk under the next index; returns it as streamed (nothing when the buffer is gone or ended). */
  push(key: string, chunk: MessageChunk): StreamChunk | undefined {
    const log = this.logs.get(key);
    if (!log || log.ended) return undefined;
    const streamed = { ...chunk, messageId: log.messageId, index: log.nextIndex++ };
    log.chunks.push(streamed);
    this.total++;
    if (log.chunks.length > this.limits.maxChunksPerMessage) this.dropOldest(log);
    while (this.total > this.limits.maxTotalChunks) this.evictOne();
    log.notify();
    return streamed;
  }

  /** The index the next chunk pushed under `key` gets; undefined when it would not be kept (no buffer, or ended). */
  nextIndex(key: string): number | undefined {
    const log = this.logs.get(key);
    return log && !log.ended ? log.nextIndex : undefined;
  }

  /** Marks the message ended: followers finish, and the buffer expires after `retainMs`. */
  end(key: string): void {
    const log = this.logs.get(key);
    if (!log || log.ended) return;
    log.ended = true;
    log.expiry = setTimeout(() => this.delete(key), this.limits.retainMs);
    log.expiry.unref();
    log.notify();
  }

  has(key: string): boolean {
    return this.logs.has(key);
  }

  /** Whether following the buffer after `afterIndex` yields anything: a run streams into it, or it holds chunks after that index. */
  follows(key: string, afterIndex: number): boolean {
    const log = this.logs.get(key);
    return log !== undefined && (!log.ended || (log.chunks.at(-1)?.index ?? -1) > afterIndex);
  }

  /** The index of the buffer's oldest kept chunk (its next one when it holds none); undefined without a buffer. */
  firstIndex(key: string): number | undefined {
    const log = this.logs.get(key);
    return log && (log.chunks[0]?.index ?? log.nextIndex);
  }

  /** Chunks after `afterIndex`, then live ones until the message ends (or its buffer is dropped). */
  async *follow(key: string, afterIndex = -1): AsyncGenerator<StreamChunk> {
    let cursor = afterIndex;
    for (;;) {
      const log = this.logs.get(key);
      if (!log) return;
      const changed = log.changed();
      const fresh = log.chunks.slice(positionAfter(log.chunks, cursor));
      for (const chunk of fresh) {
        cursor = chunk.index;
        yield chunk;
      }
      if (fresh.length > 0) continue;
      if (log.ended) return;
      await changed;
    }
  }

  /** Resolves when a run streams into the buffer under `key` (at once if one does), or after `timeoutMs`. */
  waitForOpen(key: string, timeoutMs: number): Promise<void> {
    if (this.logs.get(key)?.ended === false) return Promise.resolve();
    return this.openWaiters.wait(key, timeoutMs);
  }

  /** Drops every buffer whose key starts with `prefix` (a deleted thread's); their followers end. */
  deleteWithPrefix(prefix: string): void {
    for (const key of [...this.logs.keys()]) if (key.startsWith(prefix)) this.delete(key);
  }

  /** What the buffers hold now (for metrics and tests). */
  stats(): { messages: number; chunks: number } {
    return { messages: this.logs.size, chunks: this.total };
  }

  private dropOldest(log: ChunkLog): void {
    log.chunks.shift();
    this.total--;
  }

  private evictOne(): void {
    for (const [key, log] of this.logs) {
      if (log.ended) return this.delete(key);
    }
    // Every buffered message is still running: trim the oldest one.
    for (const log of this.logs.values()) {
      if (log.chunks.length > 0) return this.dropOldest(log);
    }
  }

  private delete(key: string): void {
    const log = this.logs.get(key);
    if (!log) return;
    clearTimeout(log.expiry);
    this.logs.delete(key);
    this.total -= log.chunks.length;
    log.notify();
  }
}
