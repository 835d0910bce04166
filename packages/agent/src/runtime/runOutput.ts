import { FencedOutError, type FencedTenure, type Logger, writeUnderFence } from "@axiom-lattice/core";
import type { MessageChunk, RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { setTimeout as sleep } from "node:timers/promises";
import { RUN_EVENT_UNLOGGED_LIMIT } from "../defaults";
import type { ChunkBuffers } from "./chunkBuffers";
import { resumedChunk } from "./runChunks";

/** Where a run's events go: this replica's buffer, and the run event log when there is one. */
export interface RunOutputDeps {
  buffers: ChunkBuffers;
  runEvents?: RunEventLog;
  /** The message's completion logs the events it is given in `runEvents` (joined stores: see {@link RunOutput.withOutcome}). */
  loggedWithCompletion: boolean;
  runEventFlushMs: number;
  /** Named in a re-run's `run_resumed` event. */
  replicaId: string;
  logger: Logger;
}

/**
 * One attempt's output. Each chunk gets its index in this replica's buffer (the owner's fast path:
 * its own streams get the chunk at once) and is written to the run event log in batches, every
 * `runEventFlushMs` and when asked, one batch at a time in index order: a follower reading after its
 * position never skips an event still being written. The last batch, the outcome's event with it, is
 * written by the message's completion (see {@link withOutcome}).
 *
 * Ids across attempts. An attempt may die with events streamed from its buffer but not logged; the
 * next attempt must not give those ids to other events, or a client that saw them and resumes (with
 * `Last-Event-ID`) would skip the new ones. So an attempt streams at most `RUN_EVENT_UNLOGGED_LIMIT`
 * events beyond the last logged one (`room` holds the run back), and a re-run starts that far past
 * the last logged index: ids jump, and never collide. A re-run is known from the message's claim count
 * (`attempts`), read with the claim, so a first attempt starts at 0 without reading the log: nothing
 * stands between the claim and its first chunk.
 *
 * Every append is made under the attempt's tenure of the thread-run lease: once a newer tenure took
 * the message over, the log refuses this attempt's events (they would follow the next attempt's
 * `run_resumed`), the tenure ends, and nothing more of the attempt is logged.
 */
export class RunOutput {
  private pending: RunEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** The log refused an append: a newer tenure runs the message, and logs its events. */
  private fencedOut = false;
  /** Taken by {@link withOutcome} for the completion to log, until {@link settleOutcome}. */
  private outcome: { chunk: MessageChunk; taken: RunEvent[]; included: boolean } | undefined;

  private constructor(
    private readonly deps: RunOutputDeps,
    private readonly key: string,
    private readonly run: RunEventRef,
    private readonly tenure: FencedTenure,
    /** The highest index known to be logged. */
    private logged: number,
    /** The highest index this attempt streamed. */
    private streamed: number,
  ) {}

  /**
   * Opens the buffer for attempt `attempt` (the message's claim count) of the run. A re-run starts
   * with a `run_resumed` event, logged before anything of the attempt is streamed: were it streamed
   * first and this attempt died, the next would reuse its id. Throws when the log cannot be read or
   * written (the database is unavailable), or refuses the tenure: the attempt must not start.
   */
  static async open(deps: RunOutputDeps, key: string, run: RunEventRef, attempt: number, tenure: FencedTenure): Promise<RunOutput> {
    const { buffers, runEvents } = deps;
    if (attempt <= 1) {
      buffers.open(key, run.messageId, 0);
      return new RunOutput(deps, key, run, tenure, -1, -1);
    }
    const resumed = resumedChunk(deps.replicaId, attempt);
    if (!runEvents) {
      // One process, no log: its buffer alone numbers the run's events.
      buffers.open(key, run.messageId);
      const output = new RunOutput(deps, key, run, tenure, -1, -1);
      output.push(resumed);
      return output;
    }
    const first = (await runEvents.lastIndex(run)) + RUN_EVENT_UNLOGGED_LIMIT + 1;
    await writeUnderFence(tenure, (fence) => runEvents.append(run, [{ ...resumed, index: first }], { fence }));
    buffers.open(key, run.messageId, first);
    buffers.push(key, resumed);
    return new RunOutput(deps, key, run, tenure, first, first);
  }

  push(chunk: MessageChunk): void {
    const streamed = this.deps.buffers.push(this.key, chunk);
    if (!streamed || !this.deps.runEvents || this.fencedOut) return;
    this.streamed = streamed.index;
    this.pending.push({ type: streamed.type, data: streamed.data, index: streamed.index });
    this.timer ??= setTimeout(() => void this.flush(), this.deps.runEventFlushMs);
  }

  /**
   * Settles once one more event may be streamed: fewer than `RUN_EVENT_UNLOGGED_LIMIT - 1` beyond the
   * last logged, the last place kept for the event that ends the attempt (its outcome or hand-over),
   * which is pushed whatever the log's state. Meanwhile it writes what is pending, again every
   * `runEventFlushMs` while the log fails. Rejects when `signal` aborts (the run is stopped).
   */
  async room(signal: AbortSignal): Promise<void> {
    const heldBack = () => !this.fencedOut && this.streamed - this.logged >= RUN_EVENT_UNLOGGED_LIMIT - 1;
    while (heldBack()) {
      await untilAborted(this.flush(), signal);
      if (heldBack()) await sleep(this.deps.runEventFlushMs, undefined, { signal });
    }
  }

  /** Writes every event pushed so far; never rejects (a failed batch is retried after `runEventFlushMs`). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writePending());
    return this.writing;
  }

  /**
   * The events the completion of the message logs with its outcome, in its own statement: every one
   * not logged yet and, numbered as the buffer will number it, `chunk`, the one that reports the
   * outcome. Batches being written are let end first. Nothing is pushed meanwhile: the completion may
   * be refused, and this replica's followers must not see an outcome not recorded. When the completion
   * cannot log them (no log, or not the completion's), every event so far is written here first, and
   * none is given; so too once fenced out. {@link settleOutcome} says what came of the completion.
   */
  async withOutcome(chunk: MessageChunk): Promise<RunEvent[]> {
    if (!this.deps.runEvents || !this.deps.loggedWithCompletion || this.fencedOut) {
      await this.flush();
      this.outcome = { chunk, taken: [], included: false };
      return [];
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    const taken = this.pending;
    this.pending = [];
    const index = this.deps.buffers.nextIndex(this.key);
    this.outcome = { chunk, taken, included: index !== undefined };
    return index === undefined ? taken : [...taken, { ...chunk, index }];
  }

  /**
   * After the completion: `recorded`, it logged what {@link withOutcome} gave it, and the outcome's
   * chunk is streamed here under its number. Otherwise the events it took wait for the next batch, and
   * the outcome's chunk is not pushed (the caller streams why the run did not end, or the chunk).
   */
  settleOutcome(recorded: boolean): void {
    const { chunk, taken, included } = this.outcome!;
    this.outcome = undefined;
    if (!recorded) {
      this.pending = [...taken, ...this.pending];
      return;
    }
    if (taken.length > 0) this.logged = taken.at(-1)!.index;
    if (!included) {
      this.push(chunk);
      return;
    }
    const streamed = this.deps.buffers.push(this.key, chunk);
    if (streamed) this.streamed = this.logged = streamed.index;
  }

  /** Ends the stream: this replica's followers finish, and the last events are written. */
  async end(): Promise<void> {
    this.deps.buffers.end(this.key);
    await this.flush();
    clearTimeout(this.timer);
    if (this.pending.length > 0) {
      this.deps.logger.warn({ messageId: this.run.messageId, dropped: this.pending.length }, "run events not logged: followers on other replicas miss them");
      this.pending = [];
    }
  }

  private async writePending(): Promise<void> {
    const batch = this.pending;
    const log = this.deps.runEvents;
    if (batch.length === 0 || !log) return;
    this.pending = [];
    try {
      await writeUnderFence(this.tenure, (fence) => log.append(this.run, batch, { fence }));
      this.logged = batch.at(-1)!.index;
    } catch (error) {
      if (error instanceof FencedOutError) {
        this.fencedOut = true;
        this.deps.logger.warn({ messageId: this.run.messageId, dropped: batch.length + this.pending.length }, "run events refused: a newer tenure of the thread runs the message");
        this.pending = [];
        return;
      }
      // Kept first in line: the next batch must not be written before it, or followers would skip it.
      this.pending = [...batch, ...this.pending];
      this.timer ??= setTimeout(() => void this.flush(), this.deps.runEventFlushMs);
      this.deps.logger.warn({ messageId: this.run.messageId, err: error }, "run events not logged yet; retrying");
    }
  }
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
