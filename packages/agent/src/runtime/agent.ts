import type { AddMessageParams, FinishedRunStatus, PendingMessage, QueueScope, ThreadRunScope } from "@axiom-lattice/core";
import type { StateSnapshot } from "@langchain/langgraph";
import { setTimeout as sleep } from "node:timers/promises";
import { type MessageChunk, MessageChunkTypes, TERMINAL_CHUNK_TYPES } from "@axiom-lattice/protocols";
import { RUN_EVENT_READ_PAGE } from "../defaults";
import { type PendingInterrupt, pendingInterrupts } from "../graph/pendingInterrupts";
import { type PlainMessage, toPlainMessage } from "../graph/plainMessage";
import { messagesOfRun } from "../graph/runBoundaries";
import type { StreamChunk } from "./chunkBuffers";
import { ThreadBusyError } from "./errors";
import { terminalChunk } from "./runChunks";
import { type AgentInput, type ResumeCommand, parseRunContent } from "./runContent";
import { type RuntimeContext, bufferKey, queueScopeOf, readThreadState } from "./runtimeContext";
import type { ThreadProcessors } from "./threadProcessors";

/** The last event of a message's stream: the run's outcome (or an error about the stream itself). A hand-over is not one. */
const endsStream = (chunk: MessageChunk) => chunk.type === MessageChunkTypes.ERROR || TERMINAL_CHUNK_TYPES.includes(chunk.type);

/** How the caller follows the run: `stream` (chunks), `wait` (final result) or `queue` (nothing). */
export type RunMode = "stream" | "queue" | "wait";

/** What to do when the thread is busy: queue behind (default), refuse, or abort the active run. */
export type MultitaskStrategy = "enqueue" | "reject" | "interrupt";

export interface AddMessageOptions {
  mode?: RunMode;
  /** Client-chosen message id (unique within the tenant). */
  messageId?: string;
  /** Resumes an interrupted run; `resume` is what the graph's `interrupt()` returns. */
  command?: ResumeCommand;
  multitaskStrategy?: MultitaskStrategy;
  /**
   * At most this many queued messages of the tenant, on all its threads and replicas, once this one
   * is queued; beyond it `QueueFullError` (bound `tenant`) and nothing is queued. Absent: no bound.
   */
  tenantQueueLimit?: number;
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

/** `busy`: messages queued or running; `interrupted`: waiting for a resume command. */
export type ThreadStatus = "idle" | "busy" | "interrupted";

export interface ResumeTaskResult {
  status: ThreadStatus;
  /** A peer holds the thread's run lease: the work is deferred to it, not failed. */
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
    const content = parseRunContent({ message: input.message, command: options.command });
    const strategy = options.multitaskStrategy ?? "enqueue";
    const params = { id: options.messageId, threadId: this.scope.threadId, scope: this.queueScope, content, tenantCapacity: options.tenantQueueLimit };
    const message = await this.enqueue(params, strategy);
    // Queued first, so the processor's next claim after the abort is this message.
    if (strategy === "interrupt") void this.processors.get(this.scope)?.stop("aborted");
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
    const { leaseContended } = await this.processors.wake(this.scope);
    return { status: leaseContended ? "busy" : await this.status(), leaseContended };
  }

  /**
   * Stops this replica's current run of the thread (only a run of `messageId`, when given); its
   * message is completed as `aborted`.
   */
  async abort(messageId?: string): Promise<boolean> {
    return (await this.processors.get(this.scope)?.stop("aborted", messageId)) ?? false;
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
    // A completed message's final event is logged just after it completes: look for it once more.
    let completedSeen = false;
    for (;;) {
      const message = await queue.getMessage(messageId, this.queueScope);
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
          for (const event of await runEvents.log.read(run, cursor, buffered - cursor - 1)) {
            cursor = event.index;
            yield { type: event.type, data: event.data, messageId, index: event.index };
            if (endsStream(event)) return;
          }
        }
        for await (const chunk of buffers.follow(key, cursor)) {
          cursor = chunk.index;
          yield chunk;
          if (endsStream(chunk)) return;
        }
        // Ended without an outcome: handed over, the run goes on where its thread runs next.
        if (this.context.isClosed()) return;
        continue;
      }
      // Waits taken before reading, so an append or a run starting here in between still wakes this one.
      const opened = buffers.waitForOpen(key, streamPollMs);
      const changed = runEvents ? Promise.race([opened, runEvents.waits.nextAppend(run, streamPollMs)]) : opened;
      const logged = runEvents ? await runEvents.log.read(run, cursor, RUN_EVENT_READ_PAGE) : [];
      for (const event of logged) {
        cursor = event.index;
        yield { type: event.type, data: event.data, messageId, index: event.index };
        if (endsStream(event)) return;
      }
      if (logged.length === RUN_EVENT_READ_PAGE) continue;
      if (message.status === "completed" && logged.length === 0) {
        if (completedSeen || !runEvents) {
          // Its log is gone (retention) or was never written: its outcome is all there is.
          const { runStatus, error } = message;
          // A completed message always carries a finished status; the guard only narrows the type.
          const status = runStatus === "pending" || runStatus === "running" ? "error" : runStatus;
          yield this.unbuffered(messageId, cursor, terminalChunk({ status, error }));
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
    const run = await this.finishedRun(messageId);
    if (!run) return { messageId, status: "aborted", error: `Message ${messageId} was deleted with its thread`, messages: [] };
    const snapshot = await this.snapshot();
    // A completed message always carries a finished status; the guard only narrows the type.
    const status = run.runStatus === "pending" || run.runStatus === "running" ? "error" : run.runStatus;
    const result: RunResult = { messageId, status, messages: messagesOfRun(snapshot.values, messageId).map(toPlainMessage) };
    if (run.error !== undefined) result.error = run.error;
    if (status === "interrupted") result.interrupts = pendingInterrupts(snapshot);
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

  private snapshot(): Promise<StateSnapshot> {
    return readThreadState(this.context, this.scope);
  }

  /** The message's record once it completed (`null` once it no longer exists). */
  private async finishedRun(messageId: string): Promise<PendingMessage | null> {
    for (;;) {
      for await (const chunk of this.chunkStream(messageId)) void chunk;
      const run = await this.context.queue.getMessage(messageId, this.queueScope);
      if (!run || run.status === "completed") return run;
      // The stream stopped unfinished, this runtime shutting down: the run goes on where it runs next.
      await sleep(this.context.streamPollMs);
    }
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
    return strategy === "interrupt" ? queue.addMessageAtHead(params) : queue.addMessage(params);
  }

  private async status(): Promise<ThreadStatus> {
    if ((await this.context.queue.getQueueSize(this.scope.threadId, this.queueScope)) > 0) return "busy";
    return (await this.getState()).interrupts.length > 0 ? "interrupted" : "idle";
  }

  private unbuffered(messageId: string, afterChunkIndex: number, chunk: Omit<StreamChunk, "messageId" | "index">): StreamChunk {
    return { ...chunk, messageId, index: afterChunkIndex + 1 };
  }
}
