import type { Page, PageRequest } from "../page";
import type { FencedWriteOptions } from "./lease";
import type { RunEvent } from "./runEventLog";

// The queue's types live here rather than in core so the shared contract suite can name them without a
// package cycle; core re-exports them under the same names, next to the queue's error classes.

/**
 * Which assistant and tenant a queued message belongs to. Predicates are strict: an absent key means
 * the column IS NULL, never "any".
 */
export interface QueueScope {
  tenantId?: string;
  assistantId?: string;
}

/**
 * One thread's queue: the thread and the strict scope it is queued in, in one object, so a caller
 * holding a run's scope (`{ tenantId, assistantId, threadId }`) passes it as it is. Other keys are ignored.
 */
export interface ThreadQueueRef extends QueueScope {
  threadId: string;
}

/** Outcome of a processed message (a run). `pending`/`running` while it is queued or claimed. */
export type RunStatus = "pending" | "running" | "success" | "error" | "interrupted" | "aborted";
export type FinishedRunStatus = Exclude<RunStatus, "pending" | "running">;

/** Where a message is in the queue. Completed rows are kept as the thread's run records. */
export type QueuedMessageStatus = "pending" | "processing" | "completed";

export interface PendingMessage {
  id: string;
  threadId: string;
  tenantId?: string;
  assistantId?: string;
  /** What the run processes: the user input, a resume command, run options. JSON. */
  content: unknown;
  /** Higher runs first; equal priorities run in queue order. */
  priority: number;
  /**
   * Queue order (decimal string, compare as integers): increasing in enqueue order at the tail;
   * messages added at the head take negative values, the latest head message first.
   */
  sequence: string;
  status: QueuedMessageStatus;
  createdAt: Date;
  /** The claim, while `processing`. */
  lockedBy?: string;
  lockedAt?: Date;
  leaseExpiresAt?: Date;
  /** The run record. */
  runStatus: RunStatus;
  /**
   * How many times the message was claimed, this claim included: 0 while never claimed, above 1 for a
   * message run again after its claimer stopped (or died) before completing it.
   */
  attempts: number;
  /** The replica that ran (or runs) it: the label of the claim's owner. */
  replicaId?: string;
  startedAt?: Date;
  finishedAt?: Date;
  error?: string;
  /**
   * The control record: when an abort of this message's run was requested (by any replica). The
   * claim's holder stops the run and completes it as `aborted`; a holder taking the claim back from
   * one that is gone completes it so without running it. Kept on the run record once it completed.
   */
  abortRequestedAt?: Date;
  /** A delayed message: claimable only from this time on (by the store's clock). Absent: at once. */
  availableAt?: Date;
}

export interface AddMessageParams {
  /**
   * Client-chosen id; a new one is generated when absent. Ids are unique per tenant (no tenant counts
   * as one more): another tenant may use the same id, and neither sees the other's message.
   */
  id?: string;
  threadId: string;
  scope: QueueScope;
  /** Any JSON value (not `undefined`). */
  content: unknown;
  /** An integer; default 0. */
  priority?: number;
  /**
   * At most this many queued (pending plus processing) messages on the thread after this add, judged
   * atomically with the add (so "only if idle" is `capacity: 1`). The store's own capacity still
   * applies: the smaller wins. An integer of at least 1.
   */
  capacity?: number;
  /**
   * At most this many queued (pending plus processing) messages of the scope's tenant, on all its
   * threads, after this add, judged atomically with the add against every writer of the store (other
   * replicas' included): beyond it the add throws `QueueFullError`, `addMessageIfCapacity` too (its
   * `null` answers the thread's capacity only). An integer of at least 1; absent: no bound per tenant.
   */
  tenantCapacity?: number;
  /**
   * Claimable only this many milliseconds after the add (by the store's clock; an integer of at least
   * 0, default 0). Until then the message is pending, counts toward capacity and keeps its queue
   * position, but claims pass over it: messages behind it that are due run first.
   */
  delayMs?: number;
  /**
   * Add only if the scope's tenant has the scope's assistant and, of that assistant, the thread, as
   * the assistant and thread stores hold them, judged by the add itself: otherwise it throws
   * `RunTargetNotFoundError` (code `NOT_FOUND`; a missing assistant named before a missing thread)
   * and adds nothing. A run request then needs no read of its target before the add. Needs a scope
   * with a tenant and an assistant.
   */
  requireTarget?: boolean;
}

export interface ClaimMessagesOptions extends FencedWriteOptions {
  /**
   * Who claims: a holder unique to one claimer within one tenant, such as a thread-run lease tenure.
   * Only it may renew or complete the claim, which name the message by id and owner alone.
   */
  owner: string;
  /** How long the claim lives without renewal, judged by the store's clock. */
  leaseMs: number;
  /** Most rows to claim at once (default 1). */
  limit?: number;
}

export interface RunOutcome {
  status: FinishedRunStatus;
  error?: string;
  /**
   * The run's last events, appended to its run event log (the message's tenant, assistant, thread and
   * id) by the step that records the outcome, and only if that step records it: a follower that reads
   * them finds the run completed, and a refused completion logs none. An index already logged is left
   * as it is. Needs a message with a tenant and an assistant, and a store that has the run event log.
   */
  events?: RunEvent[];
}

export interface PendingMessagesOptions {
  /**
   * First release lease `key` if `holder` still holds it (as `LeaseStore.release` does), then read, in
   * one round trip on PostgreSQL: the read sees every add committed before the release took the lease,
   * so an adder whose try for the lease found it held, and left its message to the holder, is seen. A
   * thread-run lease holder's last look at its thread as it lets go. Needs a store that has the lease
   * store (one database, or one process's stores).
   */
  afterReleasing?: { key: string; holder: string };
}

/** What {@link MessageQueueStore.takeBackAndClaim} did. */
export interface TakenBackAndClaimed {
  /** Claims of earlier holders taken back (returned to pending, claimed again, or completed as aborted). */
  reclaimed: number;
  /** The messages claimed, as `claimPendingMessages` answers them. */
  claimed: PendingMessage[];
}

/** What {@link MessageQueueStore.completeAndClaimNext} did. */
export interface CompletedAndClaimed {
  /** Whether the outcome was recorded: `false` when the owner no longer held the claim, as `completeMessage` answers. */
  completed: boolean;
  /**
   * The messages claimed next, as `claimPendingMessages` answers them; `null` when the claim's fence
   * did not hold (the thread-run lease has a newer tenure): nothing was claimed, and the caller's
   * tenure is over.
   */
  claimed: PendingMessage[] | null;
}

/** A thread with claimable work, for the sweep that no message may be stranded. */
export interface ThreadInfo {
  threadId: string;
  tenantId?: string;
  assistantId?: string;
  /** Pending messages that are due. */
  pendingCount: number;
  /** Processing messages whose claim has expired (their claimer is gone); `reclaimExpiredProcessing` frees them. */
  expiredCount: number;
  /**
   * How long the thread's longest-waiting work has waited, in ms by the store's clock: since a due
   * pending message was queued (or came due, when delayed), or since an expired claim expired.
   */
  waitedMs: number;
}

/**
 * The per-thread message queue. A thread's queue is its messages within one strict scope. Every add
 * path respects the per-thread capacity (pending plus processing messages), or the add's own smaller
 * `capacity`, atomically; claims are atomic, disjoint across concurrent callers, and follow priority,
 * then queue order.
 *
 * Bad arguments are refused with an error whose `code` is `INVALID_STORE_ARGUMENT`; nothing is written.
 */
export interface MessageQueueStore {
  /**
   * Enqueues at the tail; throws `QueueFullError` at the thread's or the tenant's capacity,
   * `DuplicateMessageError` on an id the tenant used.
   */
  addMessage(params: AddMessageParams): Promise<PendingMessage>;
  /** Like {@link addMessage} but answers `null` at the thread's capacity. */
  addMessageIfCapacity(params: AddMessageParams): Promise<PendingMessage | null>;
  /**
   * Enqueues ahead of every pending message of the thread (still subject to capacity): it takes the
   * highest pending priority when its own is lower, and a queue position before all of them.
   */
  addMessageAtHead(params: AddMessageParams): Promise<PendingMessage>;
  getMessage(id: string, scope: QueueScope): Promise<PendingMessage | null>;
  /** In claim order; with `afterReleasing`, once the lease it names is released (see {@link PendingMessagesOptions}). */
  getPendingMessages(thread: ThreadQueueRef, options?: PendingMessagesOptions): Promise<PendingMessage[]>;
  /** In claim order. */
  getProcessingMessages(thread: ThreadQueueRef): Promise<PendingMessage[]>;
  /** Pending plus processing messages of the thread. */
  getQueueSize(thread: ThreadQueueRef): Promise<number>;
  /** Threads with due pending messages (a delayed one once it is due) or expired claims, the longest-waiting first. */
  getThreadsWithPendingMessages(): Promise<ThreadInfo[]>;
  /**
   * A page of the thread's completed messages (its run records), oldest first: by when they finished,
   * then queue order. Throws `PageCursorError` on a cursor no page of this list returned.
   */
  listRuns(thread: ThreadQueueRef, page: PageRequest): Promise<Page<PendingMessage>>;
  /** Removes the thread's pending messages; returns how many. */
  clearMessages(thread: ThreadQueueRef): Promise<number>;
  /**
   * Returns every processing row of the thread to pending (use only when no replica can hold them),
   * except those whose abort was requested: the caller takes their claims over, so it applies the
   * request, completing them as `aborted`. Returns how many claims it released, both kinds. A new
   * holder of the thread's run lease calls it under that tenure's `fence`.
   */
  resetProcessingToPending(thread: ThreadQueueRef, options?: FencedWriteOptions): Promise<number>;
  /**
   * Atomically moves up to `limit` due pending rows to `processing` under `owner`'s lease; disjoint
   * across callers. With a `fence`, only while that tenure of the thread's run lease is the latest.
   */
  claimPendingMessages(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<PendingMessage[]>;
  /**
   * {@link resetProcessingToPending} of the thread, then {@link claimPendingMessages} under `options`
   * (its `fence` guarding both), as one atomic step (on PostgreSQL one statement): a new tenure of the
   * thread's run lease takes its predecessors' claims back and claims the oldest unfinished message in
   * one round trip instead of two. A claim taken back may be the one claimed, now under `owner`;
   * one whose abort was requested is completed as `aborted`, never claimed. Rows another transaction
   * holds are waited for, never skipped. `reclaimed` counts the claims taken back, both kinds.
   */
  takeBackAndClaim(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<TakenBackAndClaimed>;
  /**
   * Returns only expired processing rows to pending, in their old queue position (a flagged one is
   * completed as `aborted` instead, as by {@link resetProcessingToPending}); a live claim is never touched.
   */
  reclaimExpiredProcessing(thread: ThreadQueueRef): Promise<number>;
  /**
   * Records a request to abort a run, for whichever replica holds (or next takes) its claim, and
   * returns the message as it stands after the request; `null` when there is nothing to abort.
   * - Without `messageId`: the thread's processing messages (normally one) are flagged
   *   (`abortRequestedAt`, kept from the first request); the first, in claim order, is returned.
   * - With `messageId`: that message of the thread. Processing: flagged. Pending: it never ran, so it
   *   is completed as `aborted` at once (with `abortRequestedAt`). Completed: left as it is, and
   *   returned, so the caller learns how it ended. Not a message of the thread: `null`.
   * A pending message never carries the flag: releasing a flagged claim completes it (see
   * {@link resetProcessingToPending}), so a claim never hands out a message whose abort was requested.
   */
  requestAbort(thread: ThreadQueueRef, target?: { messageId?: string }): Promise<PendingMessage | null>;
  /**
   * Deletes one message of the thread unless a claim holds it: a pending one (it never runs) or a
   * completed one (its run record). Returns the message as it stood: deleted unless its status is
   * `processing` (then it is left as it is); `null` when it is not a message of the thread. Judged
   * atomically against claims: a message is either deleted and never claimed, or claimed and kept.
   */
  deleteMessage(thread: ThreadQueueRef, messageId: string): Promise<PendingMessage | null>;
  /** Extends `owner`'s live claims; returns how many were extended. */
  renewClaim(ids: string[], owner: string, leaseMs: number): Promise<number>;
  /**
   * Records the run's outcome and completes the message, only while `owner` still holds the claim
   * (an expired claim nobody has reclaimed still counts); `false` otherwise.
   */
  completeMessage(id: string, owner: string, outcome: RunOutcome): Promise<boolean>;
  /**
   * {@link completeMessage} of message `id` by the claim's owner (`options.owner`), then
   * {@link claimPendingMessages} of the thread under the same options, as one atomic step (on
   * PostgreSQL one statement): a claimer running a thread's messages one after another waits for one
   * round trip between them instead of two. Each part keeps its own check: the completion its
   * owner's, the claim its fence, so a refused fence still records an outcome whose claim was held.
   * The claim never takes the message just completed, and takes the thread's next in claim order.
   */
  completeAndClaimNext(thread: ThreadQueueRef, id: string, outcome: RunOutcome, options: ClaimMessagesOptions): Promise<CompletedAndClaimed>;
  /**
   * Deletes every message of the thread within the scope, whatever its status: pending, processing
   * and completed (its run records). Returns how many. For deleting the thread itself: call it while
   * holding the thread's run lease, so no run on any replica holds a claim on them.
   */
  deleteThreadMessages(thread: ThreadQueueRef): Promise<number>;
  /**
   * Run retention: deletes completed messages (run records) of every thread that finished more than
   * `olderThanMs` ago by the store's clock; pending and processing messages are never touched.
   * Returns how many. `olderThanMs` is a finite number of at least 0.
   */
  pruneRunsOlderThan(olderThanMs: number): Promise<number>;
}
