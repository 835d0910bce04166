import type {
  AddMessageParams,
  ClaimMessagesOptions,
  CompletedAndClaimed,
  FencedWriteOptions,
  LeaseStore,
  MessageQueueStore,
  Page,
  PageRequest,
  PendingMessage,
  PendingMessagesOptions,
  QueueScope,
  RunEventLog,
  RunEventRef,
  RunOutcome,
  RunTargetReadModel,
  TakenBackAndClaimed,
  ThreadInfo,
  ThreadQueueRef,
} from "@axiom-lattice/protocols";
import { holderLabel } from "../coordination/holder";
import { type FenceCheck, assertFenceHolds, fenceHolds } from "../coordination/leaseFence";
import { comparePageKeys, pageOfSorted } from "../stores/keysetPages";
import { StoreArgumentError, requireText } from "../stores/storeArguments";
import { DEFAULT_QUEUE_CAPACITY, IN_MEMORY_RETAINED_RUNS } from "../defaults";
import { ABORTED_RUN_ERROR, DuplicateMessageError, QueueFullError, RunTargetNotFoundError } from "./messageQueueStore";
import {
  type StrictScope,
  type ValidClaim,
  type ValidMessage,
  type ValidRunOutcome,
  validateAbortTarget,
  validateAddMessage,
  validateCapacity,
  validateClaimOptions,
  validateMessageId,
  validatePendingOptions,
  validateRenewal,
  validateRunAge,
  validateRunOutcome,
  validateScope,
  validateThreadQueue,
} from "./queueArguments";

export interface InMemoryMessageQueueStoreOptions {
  /** Queued (pending plus processing) messages per thread; default {@link DEFAULT_QUEUE_CAPACITY}. */
  capacity?: number;
  /** Completed run records kept per thread (the oldest are dropped), so a long-lived process stays bounded. */
  retainedRuns?: number;
  /** The store's clock, for leases. */
  now?: () => number;
  /** Judges the fences of claims and resets (the in-memory lease store); without it, fenced calls are refused. */
  fences?: FenceCheck;
  /** Where an add with `requireTarget` finds its target (the process's assistant and thread stores); without it, such an add is refused. */
  targets?: RunTargetReadModel;
  /**
   * Where a completion logs its outcome's events (the process's run event log, an in-memory one, whose
   * append awaits nothing); without it, an outcome with events is refused.
   */
  runEvents?: RunEventLog;
  /** What a pending read with `afterReleasing` releases the lease in (the process's lease store); without it, such a read is refused. */
  leases?: Pick<LeaseStore, "release">;
}

/** A message as held: content as JSON text, so callers never share objects with the store. */
interface StoredMessage extends Omit<PendingMessage, "content" | "sequence"> {
  content: string;
  sequence: number;
}

/** One thread's queue within one strict scope. */
interface Queue {
  threadId: string;
  scope: StrictScope;
  /** Pending and processing messages. */
  open: Set<string>;
  /** Completed messages, in completion order. */
  runs: string[];
}

const inClaimOrder = (a: StoredMessage, b: StoredMessage) => b.priority - a.priority || a.sequence - b.sequence;

/** Where a run sits in the runs list: when it finished, then its queue position (as PostgreSQL orders them). */
const runKey = (message: StoredMessage) => [message.finishedAt!.getTime(), message.sequence];

const queueKey = (threadId: string, scope: StrictScope) => JSON.stringify([threadId, scope.tenantId, scope.assistantId]);

/**
 * {@link MessageQueueStore} within one process: the same contract as the PostgreSQL store. Each
 * method checks and writes without awaiting in between, which makes it atomic in JavaScript.
 */
export class InMemoryMessageQueueStore implements MessageQueueStore {
  private readonly capacity: number;
  private readonly retainedRuns: number;
  private readonly now: () => number;
  private readonly fences: FenceCheck | undefined;
  private readonly targets: RunTargetReadModel | undefined;
  private readonly runEvents: RunEventLog | undefined;
  private readonly leases: Pick<LeaseStore, "release"> | undefined;
  /** By id, then by tenant (`null`: none): a message id is unique within its tenant only. */
  private readonly messages = new Map<string, Map<string | null, StoredMessage>>();
  private readonly queues = new Map<string, Queue>();
  private lastTail = 0;
  private lastHead = 0;

  constructor(options: InMemoryMessageQueueStoreOptions = {}) {
    this.capacity = validateCapacity(options.capacity ?? DEFAULT_QUEUE_CAPACITY);
    this.retainedRuns = validateCapacity(options.retainedRuns ?? IN_MEMORY_RETAINED_RUNS);
    this.now = options.now ?? Date.now;
    this.fences = options.fences;
    this.targets = options.targets;
    this.runEvents = options.runEvents;
    this.leases = options.leases;
  }

  async addMessage(params: AddMessageParams): Promise<PendingMessage> {
    const valid = validateAddMessage(params, this.capacity);
    if (valid.requireTarget) await this.requireTarget(valid);
    const added = this.enqueue(valid, false);
    if (!added) throw new QueueFullError(valid.threadId, valid.capacity);
    return added;
  }

  async addMessageIfCapacity(params: AddMessageParams): Promise<PendingMessage | null> {
    const valid = validateAddMessage(params, this.capacity);
    if (valid.requireTarget) await this.requireTarget(valid);
    return this.enqueue(valid, false);
  }

  async addMessageAtHead(params: AddMessageParams): Promise<PendingMessage> {
    const valid = validateAddMessage(params, this.capacity);
    if (valid.requireTarget) await this.requireTarget(valid);
    const added = this.enqueue(valid, true);
    if (!added) throw new QueueFullError(valid.threadId, valid.capacity);
    return added;
  }

  async getMessage(id: string, scope: QueueScope): Promise<PendingMessage | null> {
    const messageId = validateMessageId(id);
    const { tenantId, assistantId } = validateScope(scope);
    const message = this.message(messageId, tenantId);
    return message && (message.assistantId ?? null) === assistantId ? toMessage(message) : null;
  }

  async getPendingMessages(thread: ThreadQueueRef, options?: PendingMessagesOptions): Promise<PendingMessage[]> {
    this.queue(thread); // checked before the release: a bad thread releases nothing
    const releasing = validatePendingOptions(options);
    if (releasing) {
      if (!this.leases) throw new Error("This queue store has no lease store to release a lease in");
      await this.leases.release(releasing.key, releasing.holder);
    }
    return this.withStatus(this.queue(thread), "pending").map(toMessage);
  }

  async getProcessingMessages(thread: ThreadQueueRef): Promise<PendingMessage[]> {
    return this.withStatus(this.queue(thread), "processing").map(toMessage);
  }

  async getQueueSize(thread: ThreadQueueRef): Promise<number> {
    return this.queue(thread)?.open.size ?? 0;
  }

  async getThreadsWithPendingMessages(): Promise<ThreadInfo[]> {
    const now = this.now();
    const threads: ThreadInfo[] = [];
    for (const queue of this.queues.values()) {
      let pendingCount = 0;
      let expiredCount = 0;
      let since = Infinity;
      for (const message of this.openMessages(queue)) {
        if (message.status === "pending") {
          if (!isDue(message, now)) continue;
          pendingCount += 1;
          since = Math.min(since, Math.max(message.createdAt.getTime(), message.availableAt?.getTime() ?? 0));
        } else if (isExpired(message, now)) {
          expiredCount += 1;
          since = Math.min(since, message.leaseExpiresAt!.getTime());
        }
      }
      if (pendingCount || expiredCount) {
        threads.push({ threadId: queue.threadId, ...publicScope(queue.scope), pendingCount, expiredCount, waitedMs: Math.max(0, now - since) });
      }
    }
    return threads.sort((a, b) => b.waitedMs - a.waitedMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
  }

  async listRuns(thread: ThreadQueueRef, page: PageRequest): Promise<Page<PendingMessage>> {
    const queue = this.queue(thread);
    const runs = queue ? queue.runs.map((id) => this.inQueue(queue, id)).sort((a, b) => comparePageKeys(runKey(a), runKey(b))) : [];
    const found = pageOfSorted(runs, page, ["integer", "integer"], runKey);
    return { items: found.items.map(toMessage), nextCursor: found.nextCursor };
  }

  /**
   * The thread's latest `limit` completed messages, in completion order: what the in-memory LangGraph
   * read model reads. Not a {@link MessageQueueStore} method; `limit` is the caller's to check.
   */
  latestRunRecords(thread: ThreadQueueRef, limit: number): PendingMessage[] {
    const queue = this.queue(thread);
    return queue ? queue.runs.slice(-limit).map((id) => toMessage(this.inQueue(queue, id))) : [];
  }

  async clearMessages(thread: ThreadQueueRef): Promise<number> {
    const queue = this.queue(thread);
    if (!queue) return 0;
    const pending = this.withStatus(queue, "pending");
    for (const message of pending) {
      this.forget(message.id, queue.scope.tenantId);
      queue.open.delete(message.id);
    }
    this.forgetIfEmpty(queue);
    return pending.length;
  }

  async resetProcessingToPending(thread: ThreadQueueRef, options?: FencedWriteOptions): Promise<number> {
    const queue = this.queue(thread);
    assertFenceHolds(this.fences, options);
    return this.release(this.withStatus(queue, "processing"));
  }

  async claimPendingMessages(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<PendingMessage[]> {
    const queue = this.queue(thread);
    const claim = validateClaimOptions(options);
    assertFenceHolds(this.fences, options);
    return this.claim(queue, claim);
  }

  async takeBackAndClaim(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<TakenBackAndClaimed> {
    const queue = this.queue(thread);
    const claim = validateClaimOptions(options);
    assertFenceHolds(this.fences, options);
    const reclaimed = this.release(this.withStatus(queue, "processing"));
    return { reclaimed, claimed: this.claim(queue, claim) };
  }

  async reclaimExpiredProcessing(thread: ThreadQueueRef): Promise<number> {
    const now = this.now();
    return this.release(this.withStatus(this.queue(thread), "processing").filter((message) => isExpired(message, now)));
  }

  async requestAbort(thread: ThreadQueueRef, target?: { messageId?: string }): Promise<PendingMessage | null> {
    const queue = this.queue(thread);
    const messageId = validateAbortTarget(target);
    if (!queue) return null;
    const requestedAt = new Date(this.now());
    if (messageId === undefined) {
      const processing = this.withStatus(queue, "processing");
      for (const message of processing) message.abortRequestedAt ??= requestedAt;
      return processing.length > 0 ? toMessage(processing[0]) : null;
    }
    const message = this.ofQueue(queue, messageId);
    if (!message) return null;
    if (message.status !== "completed") message.abortRequestedAt ??= requestedAt;
    // It never ran: nobody holds a claim to apply the request, so it is applied here.
    if (message.status === "pending") this.finish(message, "aborted", ABORTED_RUN_ERROR);
    return toMessage(message);
  }

  async deleteMessage(thread: ThreadQueueRef, messageId: string): Promise<PendingMessage | null> {
    const queue = this.queue(thread);
    const id = validateMessageId(messageId);
    const message = queue && this.ofQueue(queue, id);
    if (!queue || !message) return null;
    const found = toMessage(message);
    if (message.status === "processing") return found;
    this.forget(id, queue.scope.tenantId);
    queue.open.delete(id);
    queue.runs = queue.runs.filter((run) => run !== id);
    this.forgetIfEmpty(queue);
    return found;
  }

  async renewClaim(ids: string[], owner: string, leaseMs: number): Promise<number> {
    const renewal = validateRenewal(ids, owner, leaseMs);
    const now = this.now();
    let renewed = 0;
    for (const id of new Set(renewal.ids)) {
      const message = this.claimed(id, renewal.owner);
      if (!message || isExpired(message, now)) continue;
      message.leaseExpiresAt = new Date(now + renewal.leaseMs);
      renewed += 1;
    }
    return renewed;
  }

  async completeMessage(id: string, owner: string, outcome: RunOutcome): Promise<boolean> {
    const messageId = validateMessageId(id);
    const claimer = requireText(owner, "Claim owner");
    const { completed, logged } = this.complete(messageId, claimer, validateRunOutcome(outcome));
    await logged;
    return completed;
  }

  async completeAndClaimNext(thread: ThreadQueueRef, id: string, outcome: RunOutcome, options: ClaimMessagesOptions): Promise<CompletedAndClaimed> {
    const queue = this.queue(thread);
    const messageId = validateMessageId(id);
    const valid = validateRunOutcome(outcome);
    const claim = validateClaimOptions(options);
    // Judged before anything is written, as PostgreSQL judges it at the statement's start.
    const holds = fenceHolds(this.fences, options);
    const { completed, logged } = this.complete(messageId, claim.owner, valid);
    const claimed = holds ? this.claim(queue, claim) : null;
    await logged;
    return { completed, claimed };
  }

  async deleteThreadMessages(thread: ThreadQueueRef): Promise<number> {
    const queue = this.queue(thread);
    if (!queue) return 0;
    const deleted = [...queue.open, ...queue.runs];
    for (const id of deleted) this.forget(id, queue.scope.tenantId);
    this.queues.delete(queueKey(queue.threadId, queue.scope));
    return deleted.length;
  }

  async pruneRunsOlderThan(olderThanMs: number): Promise<number> {
    const threshold = this.now() - validateRunAge(olderThanMs);
    let pruned = 0;
    for (const queue of [...this.queues.values()]) {
      const expired = queue.runs.filter((id) => this.inQueue(queue, id).finishedAt!.getTime() < threshold);
      for (const id of expired) this.forget(id, queue.scope.tenantId);
      queue.runs = queue.runs.filter((id) => this.message(id, queue.scope.tenantId));
      pruned += expired.length;
      this.forgetIfEmpty(queue);
    }
    return pruned;
  }

  /**
   * Refuses an add whose assistant or thread is missing: the one await of an add with `requireTarget`,
   * before its check-and-write (an add without it awaits nothing, as every other method).
   */
  private async requireTarget({ tenantId, assistantId, threadId }: ValidMessage): Promise<void> {
    if (!this.targets) throw new Error("This queue store has no run targets to judge an add's requireTarget by");
    const { assistantFound, thread } = await this.targets.findRunTarget(tenantId!, assistantId!, threadId);
    if (!assistantFound) throw new RunTargetNotFoundError("assistant", assistantId!, threadId);
    if (thread?.assistantId !== assistantId) throw new RunTargetNotFoundError("thread", assistantId!, threadId);
  }

  /** Adds the message unless the thread is at the add's capacity (then `null`); throws at the tenant's. */
  private enqueue(valid: ValidMessage, atHead: boolean): PendingMessage | null {
    const scope = { tenantId: valid.tenantId, assistantId: valid.assistantId };
    const key = queueKey(valid.threadId, scope);
    const queue = this.queues.get(key) ?? { threadId: valid.threadId, scope, open: new Set<string>(), runs: [] };
    if (queue.open.size >= valid.capacity) return null;
    if (valid.tenantCapacity !== null && this.openOfTenant(valid.tenantId) >= valid.tenantCapacity) {
      throw new QueueFullError(valid.threadId, valid.tenantCapacity, "tenant");
    }
    if (this.message(valid.id, valid.tenantId)) throw new DuplicateMessageError(valid.id);
    const topPriority = atHead ? Math.max(valid.priority, ...this.withStatus(queue, "pending").map((message) => message.priority)) : valid.priority;
    const message: StoredMessage = {
      id: valid.id,
      threadId: valid.threadId,
      ...publicScope(scope),
      content: valid.content,
      priority: topPriority,
      sequence: atHead ? -++this.lastHead : ++this.lastTail,
      status: "pending",
      runStatus: "pending",
      attempts: 0,
      createdAt: new Date(this.now()),
      ...(valid.delayMs > 0 ? { availableAt: new Date(this.now() + valid.delayMs) } : {}),
    };
    const tenants = this.messages.get(message.id) ?? new Map<string | null, StoredMessage>();
    this.messages.set(message.id, tenants.set(scope.tenantId, message));
    queue.open.add(message.id);
    this.queues.set(key, queue);
    return toMessage(message);
  }

  /** Pending plus processing messages of the tenant, on all its threads. */
  private openOfTenant(tenantId: string | null): number {
    let open = 0;
    for (const queue of this.queues.values()) if (queue.scope.tenantId === tenantId) open += queue.open.size;
    return open;
  }

  private queue(thread: ThreadQueueRef): Queue | undefined {
    const { threadId, scope } = validateThreadQueue(thread);
    return this.queues.get(queueKey(threadId, scope));
  }

  private message(id: string, tenantId: string | null): StoredMessage | undefined {
    return this.messages.get(id)?.get(tenantId);
  }

  /** The message with this id if it is one of the queue's. */
  private ofQueue(queue: Queue, id: string): StoredMessage | undefined {
    const message = this.message(id, queue.scope.tenantId);
    return message && message.threadId === queue.threadId && (message.assistantId ?? null) === queue.scope.assistantId ? message : undefined;
  }

  /** A message of the queue: every id in it belongs to the queue's tenant. */
  private inQueue(queue: Queue, id: string): StoredMessage {
    return this.message(id, queue.scope.tenantId)!;
  }

  /**
   * The message with this id that `owner` holds a claim on. An owner is one claimer within one tenant
   * (a lease tenure on one thread), so of the tenants' messages with the id it holds at most one.
   */
  private claimed(id: string, owner: string): StoredMessage | undefined {
    return [...(this.messages.get(id)?.values() ?? [])].find((message) => message.status === "processing" && message.lockedBy === owner);
  }

  private forget(id: string, tenantId: string | null): void {
    const tenants = this.messages.get(id);
    tenants?.delete(tenantId);
    if (tenants?.size === 0) this.messages.delete(id);
  }

  private openMessages(queue: Queue): StoredMessage[] {
    return [...queue.open].map((id) => this.inQueue(queue, id));
  }

  private withStatus(queue: Queue | undefined, status: "pending" | "processing"): StoredMessage[] {
    return queue ? this.openMessages(queue).filter((message) => message.status === status).sort(inClaimOrder) : [];
  }

  /** Moves up to the claim's limit of due pending messages to processing under its owner, in claim order. */
  private claim(queue: Queue | undefined, { owner, leaseMs, limit }: ValidClaim): PendingMessage[] {
    const now = this.now();
    const claimed = this.withStatus(queue, "pending")
      .filter((message) => isDue(message, now))
      .slice(0, limit);
    for (const message of claimed) {
      Object.assign(message, {
        status: "processing",
        lockedBy: owner,
        lockedAt: new Date(now),
        leaseExpiresAt: new Date(now + leaseMs),
        runStatus: "running",
        attempts: message.attempts + 1,
        replicaId: holderLabel(owner),
        startedAt: new Date(now),
      });
    }
    return claimed.map(toMessage);
  }

  /**
   * Completes the message `owner` holds a claim on (`completed: false` when it holds none); `logged`:
   * the append of the outcome's events, made within the call (the log's append awaits nothing).
   */
  private complete(id: string, owner: string, { status, error, events }: ValidRunOutcome): { completed: boolean; logged?: Promise<void> } {
    const message = this.claimed(id, owner);
    if (!message) return { completed: false };
    const run = events.length > 0 ? this.runOf(message) : undefined;
    this.finish(message, status, error);
    return { completed: true, ...(run ? { logged: this.runEvents!.append(run, events) } : {}) };
  }

  /** The run whose event log a completion of `message` appends to; throws when it cannot have one. */
  private runOf({ tenantId, assistantId, threadId, id }: StoredMessage): RunEventRef {
    if (!this.runEvents) throw new Error("This queue store has no run event log to log an outcome's events in");
    if (tenantId === undefined || assistantId === undefined) throw new StoreArgumentError("Run outcome events need a message with a tenant and an assistant");
    return { tenantId, assistantId, threadId, messageId: id };
  }

  /** Completes an open message: it becomes one of the queue's run records. */
  private finish(message: StoredMessage, status: RunOutcome["status"], error: string | null | undefined): void {
    Object.assign(message, {
      status: "completed",
      runStatus: status,
      error: error ?? undefined,
      finishedAt: new Date(this.now()),
      lockedBy: undefined,
      lockedAt: undefined,
      leaseExpiresAt: undefined,
    });
    const queue = this.queues.get(queueKey(message.threadId, strictScope(message)))!;
    queue.open.delete(message.id);
    queue.runs.push(message.id);
    for (const dropped of queue.runs.splice(0, Math.max(0, queue.runs.length - this.retainedRuns))) {
      this.forget(dropped, queue.scope.tenantId);
    }
  }

  /**
   * Returns processing messages to pending, keeping their queue position; one whose abort was
   * requested is completed as aborted instead (the caller takes its claim over, and applies it).
   */
  private release(messages: StoredMessage[]): number {
    for (const message of messages) {
      if (message.abortRequestedAt) {
        this.finish(message, "aborted", ABORTED_RUN_ERROR);
        continue;
      }
      Object.assign(message, {
        status: "pending",
        runStatus: "pending",
        lockedBy: undefined,
        lockedAt: undefined,
        leaseExpiresAt: undefined,
        replicaId: undefined,
        startedAt: undefined,
      });
    }
    return messages.length;
  }

  private forgetIfEmpty(queue: Queue): void {
    if (!queue.open.size && !queue.runs.length) this.queues.delete(queueKey(queue.threadId, queue.scope));
  }
}

const isExpired = (message: StoredMessage, now: number) =>
  message.leaseExpiresAt !== undefined && message.leaseExpiresAt.getTime() <= now;

const isDue = (message: StoredMessage, now: number) => message.availableAt === undefined || message.availableAt.getTime() <= now;

const strictScope = (message: StoredMessage): StrictScope => ({
  tenantId: message.tenantId ?? null,
  assistantId: message.assistantId ?? null,
});

const publicScope = (scope: StrictScope): QueueScope => ({
  ...(scope.tenantId === null ? {} : { tenantId: scope.tenantId }),
  ...(scope.assistantId === null ? {} : { assistantId: scope.assistantId }),
});

/** A caller's copy, without the keys that are unset (as a database row would map). */
function toMessage(stored: StoredMessage): PendingMessage {
  const message: Record<string, unknown> = { ...stored, content: JSON.parse(stored.content), sequence: String(stored.sequence) };
  for (const key of Object.keys(message)) if (message[key] === undefined) delete message[key];
  for (const key of ["createdAt", "lockedAt", "leaseExpiresAt", "startedAt", "finishedAt", "abortRequestedAt", "availableAt"]) {
    if (message[key] instanceof Date) message[key] = new Date((message[key] as Date).getTime());
  }
  return message as unknown as PendingMessage;
}
