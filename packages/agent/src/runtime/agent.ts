import { type AddMessageParams, type FinishedRunStatus, type PendingMessage, type QueueScope, type ThreadRunScope, queueScopeOf } from "@axiom-lattice/core";
import type { StateSnapshot } from "@langchain/langgraph";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageChunkTypes, endsChunkStream } from "@axiom-lattice/protocols";
import { RUN_EVENT_READ_PAGE } from "../defaults";
import { type PendingInterrupt, pendingInterrupts } from "../graph/pendingInterrupts";
import { type PlainMessage, toPlainMessage } from "../graph/plainMessage";
import { messagesOfRun } from "../graph/runBoundaries";
import type { GraphStreamMode } from "../graph/graphStreamEvents";
import type { StreamChunk } from "./chunkBuffers";
import { ThreadBusyError } from "./errors";
import { readThroughOutage } from "./readThroughOutage";
import { deleteRolledBackRuns, deleteRun } from "./runDeletion";
import { terminalChunk } from "./runChunks";
import { type AgentInput, type GraphRunOptions, type ResumeCommand, parseRunContent } from "./runContent";
import { type RuntimeContext, type StateReadOptions, type ThreadHistoryOptions, bufferKey, notifyPeers, readThreadHistory, readThreadState } from "./runtimeContext";
import type { ThreadProcessors } from "./threadProcessors";

/** A completed message's outcome (it always carries a finished status; the guard only narrows the type). */
const finishedStatusOf = ({ runStatus }: PendingMessage): FinishedRunStatus => (runStatus === "pending" || runStatus === "running" ? "error" : runStatus);

/** The last event of a message's stream: the run's outcome (or an error about the stream itself). A hand-over is not one. */

/** How the caller follows the run: `stream` (chunks), `wait` (final result) or `queue` (nothing). */
export type RunMode = "stream" | "queue" | "wait";

/**
 * What to do when the thread is busy: queue behind (default), refuse, abort the active run, or
 * `rollback`: abort every run queued or in progress and delete them before the new one runs.
 */
export type MultitaskStrategy = "enqueue" | "reject" | "interrupt" | "rollback";

export interface AddMessageOptions {
  mode?: RunMode;
  /** Client-chosen message id (unique within the tenant). */
  messageId?: string;
  /** Resumes an interrupted run; `resume` is what the graph's `interrupt()` returns. */
  command?: ResumeCommand;
  multitaskStrategy?: MultitaskStrategy;
  /** The assistant that runs the message, on a thread not tied to one (see `RunContent.assistantId`). */
  assistantId?: string;
  /** LangGraph stream modes the run also emits (`graph_event` chunks). */
  streamModes?: GraphStreamMode[];
  /** LangGraph's options of the run (see `RunContent.graph`). */
  graph?: GraphRunOptions;
  /** Kept with the run for the caller's own reads (see `RunContent.annotations`). */
  annotations?: Record<string, unknown>;
  /**
   * At most this many queued messages of the tenant, on all its threads and replicas, once this one
   * is queued; beyond it `QueueFullError` (bound `tenant`) and nothing is queued. Absent: no bound.
   */
  tenantQueueLimit?: number;
  /**
   * Runnable only this many milliseconds from now (by the queue store's clock), on whichever replica
   * then takes the thread; queued (and `pending`) until then. Runs due meanwhile run first.
   */
  delayMs?: number;
  /**
   * Queued only if the tenant has this agent's assistant and, of it, its thread, judged by the queue's
   * add itself (one round trip on PostgreSQL): otherwise `RunTargetNotFoundError` (code `NOT_FOUND`),
   * nothing queued and no run interrupted. For a caller that would otherwise read both first.
   */
  requireTarget?: boolean;
}

export interface AddMessageResult {
  messageId: string;
  queued: true;
  /** `mode: "stream"`: the message's chunks, from the first. */
  stream?: AsyncIterable<StreamChunk>;
  /** `mode: "wait"`: settles when the message ends. */
  completion?: Promise<RunResult>;
}

/** How a run ended, as `mode: "wait"` reports it. */
export interface RunResult {
  messageId: string;
  status: FinishedRunStatus;
  /** Why the run failed or was aborted. */
  error?: string;
  /** `interrupted`: what the run waits on (answer with a resume command). */
  interrupts?: PendingInterrupt[];
  /** The messages this run added to the thread (the human message first, for a message). */
  messages: PlainMessage[];
}

/** What an abort request came to. */
export interface AbortResult {
  /** The run it was for: the thread's run in progress, or the named message. Absent: there was none. */
  messageId?: string;
  /**
   * How that run ended, once it did within the wait: `aborted` when the abort stopped it (or it never
   * started), another status when it ended so first. Absent: it has not ended yet; the request is
   * recorded on its message, and whoever holds (or next takes) the run applies it.
   */
  status?: FinishedRunStatus;
}

export interface AbortOptions {
  /**
   * How long to wait for the run to end. Default: half the claim lease. A live holder stops the run
   * on the abort's notice at once, or at its next claim renewal (every third of the lease) should the
   * notice be lost; past half the lease, the holder is gone (or partitioned), and the replica taking
   * the thread over applies the request, which may take up to the lease again.
   */
  waitMs?: number;
}

/** `busy`: messages queued or running; `interrupted`: waiting for a resume command. */
export type ThreadStatus = "idle" | "busy" | "interrupted";

export interface ResumeTaskResult {
  status: ThreadStatus;
  /** The work is deferred to a peer, not failed: one holds the thread's run lease, or this replica runs no messages. */
  leaseContended: boolean;
}

export interface ThreadState {
  messages: PlainMessage[];
  /** Graph nodes due next (non-empty while a run is unfinished or interrupted). */
  next: string[];
  interrupts: PendingInterrupt[];
}

/**
 * One thread of one assistant of one tenant, as this process sees it. Messages go through the shared
 * queue; the thread's processor runs them one at a time, only while it holds the thread-run lease.
 * An agent holds no state of its own, so handles are cheap and never go stale.
 */
export class Agent {
  private readonly queueScope: QueueScope;

  constructor(
    readonly scope: ThreadRunScope,
    private readonly context: RuntimeContext,
    private readonly processors: ThreadProcessors,
  ) {
    this.queueScope = queueScopeOf(scope);
  }

  /** Queues a message (or resume command) and wakes this replica's processor and its peers. */
  addMessage(input: AgentInput, options: AddMessageOptions & { mode: "stream" }): Promise<AddMessageResult & { stream: AsyncIterable<StreamChunk> }>;
  addMessage(input: AgentInput, options: AddMessageOptions & { mode: "wait" }): Promise<AddMessageResult & { completion: Promise<RunResult> }>;
  addMessage(input: AgentInput, options?: AddMessageOptions): Promise<AddMessageResult>;
  async addMessage(input: AgentInput, options: AddMessageOptions = {}): Promise<AddMessageResult> {
    const { assistantId, streamModes, graph, annotations } = options;
    const strategy = options.multitaskStrategy ?? "enqueue";
    // Read before this one is queued: every run it replaces, whichever replica claims one meanwhile.
    const rollback = strategy === "rollback" ? await this.openRunIds() : undefined;
    const content = parseRunContent({ message: input.message, input: input.input, command: options.command, assistantId, streamModes, graph, annotations, rollback });
    const params = { id: options.messageId, threadId: this.scope.threadId, scope: this.queueScope, content, tenantCapacity: options.tenantQueueLimit, delayMs: options.delayMs, requireTarget: options.requireTarget };
    const message = await this.enqueue(params, strategy);
    // Queued first, so the processor's next claim after the abort is this message.
    if (strategy === "interrupt") await this.interruptRunsFor(message.id);
    if (rollback) await this.abortRuns(rollback);
    const result: AddMessageResult = { messageId: message.id, queued: true };
    if (options.mode === "stream") result.stream = this.chunkStream(message.id);
    if (options.mode === "wait") result.completion = this.waitForRun(message.id);
    void this.context.wake(this.scope);
    return result;
  }

  /**
   * Processes what is queued on this thread, taking back the claims of replicas that died and
   * continuing each message from its last checkpoint. Settles when the queue is drained (or a peer
   * owns the thread).
   */
  async resumeTask(): Promise<ResumeTaskResult> {
    const { leaseContended, leftToPeers } = await this.processors.wake(this.scope);
    if (leaseContended) return { status: "busy", leaseContended };
    const status = await this.status();
    // Where no runs are executed, only work still queued is deferred to the peers that were woken.
    return { status, leaseContended: leftToPeers === true && status === "busy" };
  }

  /**
   * Aborts the thread's run in progress, or the run of `messageId` (a pending message is completed as
   * aborted at once), wherever it runs: the request is recorded on its message and the replica holding
   * the run applies it (told at once; or it finds it at its next claim renewal, or when it takes the
   * thread over). Then waits, at most `waitMs`, for the run to end and reports how it did.
   */
  async abort(messageId?: string, options: AbortOptions = {}): Promise<AbortResult> {
    const { queue, claimLeaseMs } = this.context;
    const target = await queue.requestAbort(this.scope, messageId === undefined ? undefined : { messageId });
    if (!target) return {};
    if (target.status !== "completed") await this.signalAbort();
    const ended = await this.completedWithin(target.id, options.waitMs ?? claimLeaseMs / 2);
    // Deleted with its thread meanwhile: it ends unfinished, as waitForRun counts it.
    if (!ended) return { messageId: target.id, status: "aborted" };
    return ended.status === "completed" ? { messageId: target.id, status: finishedStatusOf(ended) } : { messageId: target.id };
  }

  /** Deletes the run of `messageId` unless it is in progress (see {@link deleteRun}). */
  deleteRun(messageId: string): Promise<PendingMessage | null> {
    return deleteRun(this.context, this.scope, messageId);
  }

  /**
   * Cancel with `action: rollback`: stops the run of `messageId` as {@link abort} does, wherever it
   * runs, and deletes it once it ended stopped (a queued one at once). A run that ended on its own
   * first is kept. Settles once it is deleted (or kept); `false` when the thread has no such run.
   */
  async rollback(messageId: string): Promise<boolean> {
    const { messageId: target, status } = await this.abort(messageId);
    if (!target) return false;
    if (status === undefined) await this.finishedRun(messageId);
    await deleteRolledBackRuns(this.context, this.scope, [messageId]);
    return true;
  }

  /**
   * A message's chunks after `afterChunkIndex`, then live ones until it ends. A message this replica
   * runs (or ran lately) is followed in its buffer; any other in the run event log, under the ids its
   * replica gave, woken by the log's notifications (or every `streamPollMs`, should one be lost).
   * A run handed over (`run_handed_over`) is followed on: its buffer ends without an outcome, and the
   * stream goes on in the log (or the buffer again) with the next attempt's `run_resumed`, wherever it
   * runs. Once this runtime shut down it ends, without an outcome, where it would wait: the client
   * resumes elsewhere.
   * The queue store is asked first, every time: a buffer can outlive its message in this replica's
   * memory (its thread deleted, maybe by a peer), and must not replay an answer that no longer exists.
   */
  async *chunkStream(messageId: string, afterChunkIndex = -1): AsyncGenerator<StreamChunk> {
    const { buffers, queue, streamPollMs, runEvents } = this.context;
    const run = { ...this.scope, messageId };
    let cursor = afterChunkIndex;
    // A completed message's final event is logged by its completion, or (stores not joined) just after
    // it: look for it once more.
    let completedSeen = false;
    const patiently = <T>(read: () => Promise<T>) => readThroughOutage(read, { retryMs: streamPollMs, stopped: () => this.context.isClosed() });
    for (;;) {
      const message = await patiently(() => queue.getMessage(messageId, this.queueScope));
      if (!message || message.threadId !== this.scope.threadId) {
        yield this.unbuffered(messageId, cursor, {
          type: MessageChunkTypes.ERROR,
          data: { code: "MESSAGE_NOT_FOUND", error: `Message ${messageId} not found on this thread` },
        });
        return;
      }
      const key = bufferKey(this.scope, message);
      if (buffers.follows(key, cursor)) {
        // The buffer holds the run from its first kept chunk on; what came before (an earlier attempt
        // on another replica, chunks dropped beyond the buffer's bounds) is in the log.
        const buffered = buffers.firstIndex(key)!;
        if (runEvents && cursor + 1 < buffered) {
          for (const event of await patiently(() => runEvents.log.read(run, cursor, buffered - cursor - 1))) {
            cursor = event.index;
            yield { type: event.type, data: event.data, messageId, index: event.index };
            if (endsChunkStream(event)) return;
          }
        }
        for await (const chunk of buffers.follow(key, cursor)) {
          cursor = chunk.index;
          yield chunk;
          if (endsChunkStream(chunk)) return;
        }
        // Ended without an outcome: handed over, the run goes on where its thread runs next.
        if (this.context.isClosed()) return;
        continue;
      }
      // Waits taken before reading, so an append or a run starting here in between still wakes this one.
      const opened = buffers.waitForOpen(key, streamPollMs);
      const changed = runEvents ? Promise.race([opened, runEvents.waits.nextAppend(run, streamPollMs)]) : opened;
      const logged = runEvents ? await patiently(() => runEvents.log.read(run, cursor, RUN_EVENT_READ_PAGE)) : [];
      for (const event of logged) {
        cursor = event.index;
        yield { type: event.type, data: event.data, messageId, index: event.index };
        if (endsChunkStream(event)) return;
      }
      if (logged.length === RUN_EVENT_READ_PAGE) continue;
      if (message.status === "completed" && logged.length === 0) {
        if (completedSeen || !runEvents) {
          // Its log is gone (retention) or was never written: its outcome is all there is.
          yield this.unbuffered(messageId, cursor, terminalChunk({ status: finishedStatusOf(message), error: message.error }));
          return;
        }
        completedSeen = true;
      }
      // This runtime shut down: it serves what it has and follows no further.
      if (this.context.isClosed()) return;
      await changed;
    }
  }

  /**
   * Follows the message to its end, wherever it runs, then reports its outcome and the messages it
   * added. A message deleted with its thread before it finished counts as aborted.
   */
  async waitForRun(messageId: string): Promise<RunResult> {
    const { run, ending } = await this.finishedRun(messageId);
    if (!run) return { messageId, status: "aborted", error: `Message ${messageId} was deleted with its thread`, messages: [] };
    const snapshot = await this.snapshot();
    const status = finishedStatusOf(run);
    const result: RunResult = { messageId, status, messages: messagesOfRun(snapshot.values, messageId).map(toPlainMessage) };
    if (run.error !== undefined) result.error = run.error;
    // The run's own, as its final event carries them: by now the thread may have moved on (a
    // delegation's callee answered and the caller resumed), its snapshot holding none, or a later
    // run's. The snapshot serves when that event is gone (its log pruned).
    if (status === "interrupted") result.interrupts = interruptsOf(ending) ?? pendingInterrupts(snapshot);
    return result;
  }

  /** The thread's checkpointed state. */
  async getState(): Promise<ThreadState> {
    const state = await this.snapshot();
    return {
      messages: (state.values.messages ?? []).map(toPlainMessage),
      next: [...state.next],
      interrupts: pendingInterrupts(state),
    };
  }

  /** The thread's checkpointed state as LangGraph reads it: its latest checkpoint, or the one named; read with the thread's graph. */
  stateSnapshot(options: StateReadOptions = {}): Promise<StateSnapshot> {
    return readThreadState(this.context, this.scope, options);
  }

  /** The thread's checkpoints, newest first. */
  stateHistory(options: ThreadHistoryOptions): Promise<StateSnapshot[]> {
    return readThreadHistory(this.context, this.scope, options);
  }

  private snapshot(): Promise<StateSnapshot> {
    return this.stateSnapshot();
  }

  /** The message's record once it completed (`null` once it no longer exists), and the last event its stream ended with. */
  private async finishedRun(messageId: string): Promise<{ run: PendingMessage | null; ending?: StreamChunk }> {
    let ending: StreamChunk | undefined;
    for (;;) {
      for await (const chunk of this.chunkStream(messageId)) ending = chunk;
      const run = await this.context.queue.getMessage(messageId, this.queueScope);
      if (!run || run.status === "completed") return { run, ending };
      // The stream stopped unfinished, this runtime shutting down: the run goes on where it runs next.
      await sleep(this.context.streamPollMs);
    }
  }

  /**
   * The message's record once it completed, or as it stands after `waitMs`; `null` once it no longer
   * exists. Woken by the run's events (its final one is logged right after it completes) where they
   * are logged, else by polling.
   */
  private async completedWithin(messageId: string, waitMs: number): Promise<PendingMessage | null> {
    const { queue, runEvents, streamPollMs } = this.context;
    const run = { ...this.scope, messageId };
    const deadline = Date.now() + waitMs;
    for (;;) {
      const step = Math.min(deadline - Date.now(), streamPollMs);
      // Taken before reading, so an event logged in between still wakes this one.
      const changed = step <= 0 ? undefined : runEvents ? runEvents.waits.nextAppend(run, step) : sleep(step, undefined, { ref: false });
      const record = await queue.getMessage(messageId, this.queueScope);
      if (!record || record.status === "completed" || !changed) return record;
      await changed;
    }
  }

  /** Gets the abort requested on the thread's run applied: by this replica's processor now (awaited), by the peers' on notice. */
  private async signalAbort(): Promise<void> {
    await Promise.all([this.processors.get(this.scope)?.applyAbortRequest(), notifyPeers(this.context, { ...this.scope, abortRequested: true })]);
  }

  /** The `interrupt` strategy: requests the abort of every run in progress on the thread but the new message's. */
  private async interruptRunsFor(messageId: string): Promise<void> {
    const running = (await this.context.queue.getProcessingMessages(this.scope)).filter((message) => message.id !== messageId);
    await this.abortRuns(running.map((message) => message.id));
  }

  /** The thread's queued and running runs. */
  private async openRunIds(): Promise<string[]> {
    const { queue } = this.context;
    const [processing, pending] = await Promise.all([queue.getProcessingMessages(this.scope), queue.getPendingMessages(this.scope)]);
    return [...processing, ...pending].map((message) => message.id);
  }

  /** Requests the abort of these runs: a queued one ends at once, a running one by its holder. */
  private async abortRuns(runIds: readonly string[]): Promise<void> {
    const { queue } = this.context;
    const requested = await Promise.all(runIds.map((messageId) => queue.requestAbort(this.scope, { messageId })));
    // Not awaited: the new message is queued, and the stop is the holder's to make.
    if (requested.some((message) => message?.status === "processing")) void this.signalAbort();
  }

  private async enqueue(params: AddMessageParams, strategy: MultitaskStrategy): Promise<PendingMessage> {
    const { queue } = this.context;
    if (strategy === "reject") {
      // "Only if idle" is judged by the store together with the add: a separate size check would let
      // concurrent rejects (on this replica or another) all see an idle thread and all enqueue.
      const message = await queue.addMessageIfCapacity({ ...params, capacity: 1 });
      if (!message) throw new ThreadBusyError(this.scope);
      return message;
    }
    return strategy === "interrupt" || strategy === "rollback" ? queue.addMessageAtHead(params) : queue.addMessage(params);
  }

  private async status(): Promise<ThreadStatus> {
    if ((await this.context.queue.getQueueSize(this.scope)) > 0) return "busy";
    return (await this.getState()).interrupts.length > 0 ? "interrupted" : "idle";
  }

  private unbuffered(messageId: string, afterChunkIndex: number, chunk: Omit<StreamChunk, "messageId" | "index">): StreamChunk {
    return { ...chunk, messageId, index: afterChunkIndex + 1 };
  }
}

/** The interrupts a run's final event names; none when it is not an interrupt, or names none (an outcome rebuilt from the queue). */
function interruptsOf(ending: StreamChunk | undefined): PendingInterrupt[] | undefined {
  if (ending?.type !== MessageChunkTypes.INTERRUPT) return undefined;
  const { interrupts } = ending.data as { interrupts?: PendingInterrupt[] };
  return interrupts?.length ? interrupts : undefined;
}
