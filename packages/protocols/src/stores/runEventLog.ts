import type { MessageChunk } from "../chunks";
import type { FencedWriteOptions } from "./lease";

/** The run of one message: the thread it belongs to and the message's id. */
export interface RunEventRef {
  tenantId: string;
  assistantId: string;
  threadId: string;
  messageId: string;
}

/** One event of a run's stream, under the index the running replica gave it (SSE id `<messageId>:<index>`). */
export interface RunEvent extends MessageChunk {
  index: number;
}

/**
 * The durable log of every run's stream, so any replica can replay a run and follow it live. Appends
 * are batched by the writer; each append wakes the subscribers of every replica once.
 */
export interface RunEventLog {
  /**
   * Appends events (indexes increasing) to the run's log and tells the subscribers. An index already
   * logged is left as it is, so re-appending a batch is harmless. The running replica fences its
   * appends with the thread's run lease: a paused attempt's events never follow its successor's.
   */
  append(run: RunEventRef, events: RunEvent[], options?: FencedWriteOptions): Promise<void>;
  /** The run's events after `afterIndex`, in index order, at most `limit`. */
  read(run: RunEventRef, afterIndex: number, limit: number): Promise<RunEvent[]>;
  /** The run's highest logged index, or -1: a re-run of the message continues after it. */
  lastIndex(run: RunEventRef): Promise<number>;
  /** Deletes the log of one run. */
  deleteRun(run: RunEventRef): Promise<void>;
  /** Deletes the logs of every run of the thread. */
  deleteThread(run: Omit<RunEventRef, "messageId">): Promise<void>;
  /** Deletes events logged more than `olderThanMs` ago (by the store's clock); resolves to how many. */
  pruneOlderThan(olderThanMs: number): Promise<number>;
  /**
   * Calls `listener` with the run of each append, on every replica; with nothing after the store may
   * have missed some (its LISTEN connection came back), so followers read again.
   */
  subscribe(listener: (run?: RunEventRef) => void): () => void;
}
