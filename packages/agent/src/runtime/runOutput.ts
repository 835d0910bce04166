import type { Logger } from "@axiom-lattice/core";
import type { MessageChunk, RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import type { ChunkBuffers } from "./chunkBuffers";

/** Where a run's events go: this replica's buffer, and the run event log when there is one. */
export interface RunOutputDeps {
  buffers: ChunkBuffers;
  runEvents?: RunEventLog;
  runEventFlushMs: number;
  logger: Logger;
}

/**
 * One run's output. Each chunk gets its index in this replica's buffer (the owner's fast path) and is
 * written to the run event log in batches, every `runEventFlushMs` and when asked, one batch at a time
 * in index order: a follower reading after its position never skips an event still being written.
 */
export class RunOutput {
  private pending: RunEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly deps: RunOutputDeps,
    private readonly key: string,
    private readonly run: RunEventRef,
  ) {}

  /**
   * Opens the run's buffer under `key`. A re-run of the message continues after the last index
   * logged (by whichever replica ran it before), so ids stay unique and increasing across re-runs.
   */
  static async open(deps: RunOutputDeps, key: string, run: RunEventRef): Promise<RunOutput> {
    let firstIndex = 0;
    try {
      firstIndex = deps.runEvents ? (await deps.runEvents.lastIndex(run)) + 1 : 0;
    } catch (error) {
      deps.logger.warn({ messageId: run.messageId, err: error }, "run event log unreadable; the run's indexes start from this replica's buffer");
    }
    deps.buffers.open(key, run.messageId, firstIndex);
    return new RunOutput(deps, key, run);
  }

  push(chunk: MessageChunk): void {
    const streamed = this.deps.buffers.push(this.key, chunk);
    if (!streamed || !this.deps.runEvents) return;
    this.pending.push({ type: streamed.type, data: streamed.data, index: streamed.index });
    this.timer ??= setTimeout(() => void this.flush(), this.deps.runEventFlushMs);
  }

  /** Writes every event pushed so far; never rejects (a failed batch is retried by the next flush). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writePending());
    return this.writing;
  }

  /** Ends the stream: this replica's followers finish, and the last events are written. */
  async end(): Promise<void> {
    this.deps.buffers.end(this.key);
    await this.flush();
    if (this.pending.length > 0) {
      this.deps.logger.warn({ messageId: this.run.messageId, dropped: this.pending.length }, "run events not logged: followers on other replicas miss them");
      this.pending = [];
    }
  }

  private async writePending(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0 || !this.deps.runEvents) return;
    this.pending = [];
    try {
      await this.deps.runEvents.append(this.run, batch);
    } catch (error) {
      // Kept first in line: the next batch must not be written before it, or followers would skip it.
      this.pending = [...batch, ...this.pending];
      this.deps.logger.warn({ messageId: this.run.messageId, err: error }, "run events not logged yet; retrying at the next flush");
    }
  }
}
