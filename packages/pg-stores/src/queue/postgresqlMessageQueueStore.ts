import {
  ABORTED_RUN_ERROR,
  DEFAULT_QUEUE_CAPACITY,
  DuplicateMessageError,
  type PageKey,
  QueueFullError,
  RunTargetNotFoundError,
  holderLabel,
  requireText,
  validateAbortTarget,
  validateAddMessage,
  validateCapacity,
  validateClaimOptions,
  validateFence,
  validateMessageId,
  validatePendingOptions,
  validateRenewal,
  validateRunAge,
  validateRunOutcome,
  validateScope,
  validateThreadQueue,
  type ValidMessage,
} from "@axiom-lattice/core";
import type {
  AddMessageParams,
  ClaimMessagesOptions,
  CompletedAndClaimed,
  FencedWriteOptions,
  LeaseFence,
  MessageQueueStore,
  Page,
  PageRequest,
  PendingMessage,
  PendingMessagesOptions,
  QueueScope,
  QueuedMessageStatus,
  RunOutcome,
  RunStatus,
  TakenBackAndClaimed,
  ThreadInfo,
  ThreadQueueRef,
} from "@axiom-lattice/protocols";
import { assertHeld, fenceParams } from "../coordination/fenceSql";
import { readPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { isUniqueViolation } from "../db/transaction";
import { runEventArrays } from "../runs/runEventSql";
import {
  CLAIM_MESSAGES,
  CLEAR_PENDING,
  COMPLETE_AND_CLAIM,
  COMPLETE_MESSAGE,
  DELETE_MESSAGE,
  DELETE_THREAD_MESSAGES,
  ENQUEUE_MESSAGE,
  TARGET_ASSISTANT_MISSING,
  TARGET_THREAD_MISSING,
  GET_MESSAGE,
  LIST_BY_STATUS,
  LIST_RUNS,
  PRUNE_RUNS,
  QUEUE_SIZE,
  RELEASE_LEASE_THEN_PENDING,
  RECLAIM_EXPIRED,
  RENEW_CLAIMS,
  REQUEST_MESSAGE_ABORT,
  REQUEST_THREAD_ABORT,
  RESET_PROCESSING,
  TAKE_BACK_AND_CLAIM,
  TENANT_QUEUE_FULL,
  THREADS_WITH_WORK,
  type ClaimStatement,
  type PreparedStatement,
} from "./messageQueueSql";

export interface PostgreSQLMessageQueueStoreOptions extends PgStoreOptions {
  /** Queued (pending plus processing) messages per thread; default {@link DEFAULT_QUEUE_CAPACITY}. */
  capacity?: number;
}

/** A row of `lattice_thread_message_queue` as its columns (`COLUMNS`) read. */
export interface MessageRow {
  id: string;
  thread_id: string;
  tenant_id: string | null;
  assistant_id: string | null;
  content: unknown;
  priority: number;
  sequence: string;
  status: QueuedMessageStatus;
  created_at: Date;
  locked_by: string | null;
  locked_at: Date | null;
  lease_expires_at: Date | null;
  run_status: RunStatus;
  attempts: number;
  replica_id: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  error: string | null;
  abort_requested_at: Date | null;
  available_at: Date | null;
}

/**
 * What a claim reads back, per claimed row; the rest of the claimed message is what the claim itself
 * wrote. A claim that took nothing answers one row without a message.
 */
type ClaimedRow = { fence_holds: boolean } & Pick<MessageRow, "id" | "content" | "priority" | "sequence" | "created_at" | "locked_at" | "lease_expires_at" | "attempts" | "available_at">;

/** `fields` plus those of `nullable` that are not null: an unset field is absent, as in every store. */
function withPresent<T>(fields: object, nullable: Record<string, unknown>): T {
  const record: Record<string, unknown> = { ...fields };
  for (const key in nullable) if (nullable[key] !== null) record[key] = nullable[key];
  return record as T;
}

// jsonb arrives already parsed: content is used as it comes, never JSON.parse'd again.
export const toMessage = (row: MessageRow): PendingMessage =>
  withPresent(
    {
      id: row.id,
      threadId: row.thread_id,
      content: row.content,
      priority: row.priority,
      sequence: String(row.sequence),
      status: row.status,
      createdAt: row.created_at,
      runStatus: row.run_status,
      attempts: row.attempts,
    },
    {
      tenantId: row.tenant_id,
      assistantId: row.assistant_id,
      lockedBy: row.locked_by,
      lockedAt: row.locked_at,
      leaseExpiresAt: row.lease_expires_at,
      replicaId: row.replica_id,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      error: row.error,
      abortRequestedAt: row.abort_requested_at,
      availableAt: row.available_at,
    },
  );

/** The key that makes a message id unique within its tenant (migration 189). */
const MESSAGE_ID_KEY = "lattice_thread_message_queue_id_per_tenant";

/**
 * {@link MessageQueueStore} on `lattice_thread_message_queue`. Adds to a thread are serialised by a
 * per-thread advisory lock (exact capacity, queue order = commit order), and those bounded per tenant
 * by a per-tenant one too (an exact count across replicas); a claim is one statement,
 * disjoint across replicas; completion and renewal are conditional on the claim's owner.
 */
export class PostgreSQLMessageQueueStore extends PgStore implements MessageQueueStore {
  private readonly capacity: number;

  constructor(options: PostgreSQLMessageQueueStoreOptions) {
    const capacity = validateCapacity(options.capacity ?? DEFAULT_QUEUE_CAPACITY);
    super(options);
    this.capacity = capacity;
  }

  async addMessage(params: AddMessageParams): Promise<PendingMessage> {
    const valid = validateAddMessage(params, this.capacity);
    const added = await this.enqueue(valid, false);
    if (!added) throw new QueueFullError(valid.threadId, valid.capacity);
    return added;
  }

  async addMessageIfCapacity(params: AddMessageParams): Promise<PendingMessage | null> {
    return this.enqueue(validateAddMessage(params, this.capacity), false);
  }

  async addMessageAtHead(params: AddMessageParams): Promise<PendingMessage> {
    const valid = validateAddMessage(params, this.capacity);
    const added = await this.enqueue(valid, true);
    if (!added) throw new QueueFullError(valid.threadId, valid.capacity);
    return added;
  }

  async getMessage(id: string, scope: QueueScope): Promise<PendingMessage | null> {
    const messageId = validateMessageId(id);
    const { tenantId, assistantId } = validateScope(scope);
    const rows = await this.rows(GET_MESSAGE, [messageId, tenantId, assistantId]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async getPendingMessages(thread: ThreadQueueRef, options?: PendingMessagesOptions): Promise<PendingMessage[]> {
    const params = queueParams(thread);
    const releasing = validatePendingOptions(options);
    if (!releasing) return (await this.rows(LIST_BY_STATUS, [...params, "pending"])).map(toMessage);
    return (await this.rows(RELEASE_LEASE_THEN_PENDING, [releasing.key, releasing.holder, ...params])).map(toMessage);
  }

  async getProcessingMessages(thread: ThreadQueueRef): Promise<PendingMessage[]> {
    return (await this.rows(LIST_BY_STATUS, [...queueParams(thread), "processing"])).map(toMessage);
  }

  async getQueueSize(thread: ThreadQueueRef): Promise<number> {
    const params = queueParams(thread);
    await this.initialize();
    const { rows } = await this.pool.query<{ size: number }>(QUEUE_SIZE, params);
    return rows[0].size;
  }

  async getThreadsWithPendingMessages(): Promise<ThreadInfo[]> {
    await this.initialize();
    const { rows } = await this.pool.query<{
      thread_id: string;
      tenant_id: string | null;
      assistant_id: string | null;
      pending_count: number;
      expired_count: number;
      waited_ms: string;
    }>(THREADS_WITH_WORK);
    return rows.map((row) =>
      withPresent<ThreadInfo>(
        { threadId: row.thread_id, pendingCount: row.pending_count, expiredCount: row.expired_count, waitedMs: Math.max(0, Number(row.waited_ms)) },
        { tenantId: row.tenant_id, assistantId: row.assistant_id },
      ),
    );
  }

  async listRuns(thread: ThreadQueueRef, page: PageRequest): Promise<Page<PendingMessage>> {
    const queue = queueParams(thread);
    const read = async (after: PageKey | null, fetch: number) =>
      (await this.rows(LIST_RUNS, [...queue, ...(after ?? [null, null]), fetch])) as Array<MessageRow & { finished_us: string }>;
    return readPage(page, ["integer", "integer"], read, (row) => [Number(row.finished_us), Number(row.sequence)], toMessage);
  }

  async clearMessages(thread: ThreadQueueRef): Promise<number> {
    return this.count(CLEAR_PENDING, queueParams(thread));
  }

  async resetProcessingToPending(thread: ThreadQueueRef, options?: FencedWriteOptions): Promise<number> {
    const params = queueParams(thread);
    const fence = validateFence(options);
    await this.initialize();
    const { rows } = await this.pool.query<{ fence_holds: boolean; released: number }>(RESET_PROCESSING, [...params, ABORTED_RUN_ERROR, ...fenceParams(fence)]);
    assertHeld(rows[0].fence_holds, fence);
    return rows[0].released;
  }

  async claimPendingMessages(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<PendingMessage[]> {
    const { values, fence } = claimParams(thread, options);
    await this.initialize();
    const { rows } = await this.pool.query<ClaimedRow>({ ...claimStatement(CLAIM_MESSAGES, fence), values });
    assertHeld(rows[0].fence_holds, fence);
    return claimedMessages(values, rows);
  }

  async takeBackAndClaim(thread: ThreadQueueRef, options: ClaimMessagesOptions): Promise<TakenBackAndClaimed> {
    const { values, fence } = claimParams(thread, options);
    await this.initialize();
    const { rows } = await this.pool.query<ClaimedRow & { reclaimed: number }>({ ...TAKE_BACK_AND_CLAIM, values: [...values, ABORTED_RUN_ERROR] });
    assertHeld(rows[0].fence_holds, fence);
    return { reclaimed: rows[0].reclaimed, claimed: claimedMessages(values, rows) };
  }

  async completeAndClaimNext(thread: ThreadQueueRef, id: string, outcome: RunOutcome, options: ClaimMessagesOptions): Promise<CompletedAndClaimed> {
    const { values, fence } = claimParams(thread, options);
    const messageId = validateMessageId(id);
    const { status, error, events } = validateRunOutcome(outcome);
    await this.initialize();
    const { rows } = await this.pool.query<ClaimedRow & { completed: boolean }>({
      ...claimStatement(COMPLETE_AND_CLAIM, fence),
      values: [...values, messageId, status, error, ...runEventArrays(events)],
    });
    return { completed: rows[0].completed, claimed: rows[0].fence_holds ? claimedMessages(values, rows) : null };
  }

  async reclaimExpiredProcessing(thread: ThreadQueueRef): Promise<number> {
    return this.count(RECLAIM_EXPIRED, [...queueParams(thread), ABORTED_RUN_ERROR]);
  }

  async requestAbort(thread: ThreadQueueRef, target?: { messageId?: string }): Promise<PendingMessage | null> {
    const params = queueParams(thread);
    const messageId = validateAbortTarget(target);
    if (messageId === undefined) return (await this.rows(REQUEST_THREAD_ABORT, params)).map(toMessage)[0] ?? null;
    const [requested] = await this.rows(REQUEST_MESSAGE_ABORT, [...params, messageId, ABORTED_RUN_ERROR]);
    if (requested) return toMessage(requested);
    // Completed already, or not a message of this thread.
    return this.messageOfThread(params, messageId);
  }

  async deleteMessage(thread: ThreadQueueRef, messageId: string): Promise<PendingMessage | null> {
    const params = queueParams(thread);
    const id = validateMessageId(messageId);
    const [deleted] = await this.rows(DELETE_MESSAGE, [...params, id]);
    if (deleted) return toMessage(deleted);
    // Processing (kept), or not a message of this thread.
    return this.messageOfThread(params, id);
  }

  async renewClaim(ids: string[], owner: string, leaseMs: number): Promise<number> {
    const renewal = validateRenewal(ids, owner, leaseMs);
    if (renewal.ids.length === 0) return 0;
    return this.count(RENEW_CLAIMS, [renewal.ids, renewal.owner, renewal.leaseMs]);
  }

  async completeMessage(id: string, owner: string, outcome: RunOutcome): Promise<boolean> {
    const messageId = validateMessageId(id);
    const claimer = requireText(owner, "Claim owner");
    const { status, error, events } = validateRunOutcome(outcome);
    return (await this.count(COMPLETE_MESSAGE, [messageId, claimer, status, error, ...runEventArrays(events)])) === 1;
  }

  async deleteThreadMessages(thread: ThreadQueueRef): Promise<number> {
    return this.count(DELETE_THREAD_MESSAGES, queueParams(thread));
  }

  async pruneRunsOlderThan(olderThanMs: number): Promise<number> {
    return this.count(PRUNE_RUNS, [validateRunAge(olderThanMs)]);
  }

  /** Adds the message unless the thread is at the add's capacity (then `null`); throws at the tenant's. */
  private async enqueue(valid: ValidMessage, atHead: boolean): Promise<PendingMessage | null> {
    try {
      const [row] = await this.rows(ENQUEUE_MESSAGE, [
        valid.threadId,
        valid.tenantId,
        valid.assistantId,
        valid.id,
        valid.content,
        valid.priority,
        valid.capacity,
        atHead,
        valid.delayMs,
        valid.tenantCapacity,
        valid.requireTarget,
      ]);
      return row ? toMessage(row) : null;
    } catch (error) {
      if (isUniqueViolation(error, MESSAGE_ID_KEY)) throw new DuplicateMessageError(valid.id);
      const { code } = error as { code?: unknown };
      if (code === TENANT_QUEUE_FULL) throw new QueueFullError(valid.threadId, valid.tenantCapacity!, "tenant");
      if (code === TARGET_ASSISTANT_MISSING) throw new RunTargetNotFoundError("assistant", valid.assistantId!, valid.threadId);
      if (code === TARGET_THREAD_MISSING) throw new RunTargetNotFoundError("thread", valid.assistantId!, valid.threadId);
      throw error;
    }
  }

  /** Message `id` if it is one of the thread's queue ($1 thread, $2 tenant, $3 assistant). */
  private async messageOfThread([threadId, tenantId, assistantId]: [string, string | null, string | null], id: string): Promise<PendingMessage | null> {
    const [found] = await this.rows(GET_MESSAGE, [id, tenantId, assistantId]);
    return found?.thread_id === threadId ? toMessage(found) : null;
  }

  private async rows(statement: Statement, values: unknown[]): Promise<MessageRow[]> {
    await this.initialize();
    return (await this.pool.query<MessageRow>(queryConfig(statement, values))).rows;
  }

  private async count(statement: Statement, values: unknown[]): Promise<number> {
    await this.initialize();
    return (await this.pool.query(queryConfig(statement, values))).rowCount ?? 0;
  }
}

type Statement = string | PreparedStatement;

const queryConfig = (statement: Statement, values: unknown[]) =>
  typeof statement === "string" ? { text: statement, values } : { ...statement, values };

/** The claim statement's parameters ($1–$9), checked. */
type ClaimParams = [threadId: string, tenantId: string | null, assistantId: string | null, owner: string, leaseMs: number, replicaId: string, limit: number, fenceKey: string | null, fenceToken: string | null];

function claimParams(thread: ThreadQueueRef, options: ClaimMessagesOptions): { values: ClaimParams; fence: LeaseFence | undefined } {
  const [threadId, tenantId, assistantId] = queueParams(thread);
  const { owner, leaseMs, limit, fence } = validateClaimOptions(options);
  return { values: [threadId, tenantId, assistantId, owner, leaseMs, holderLabel(owner), limit, ...fenceParams(fence)], fence };
}

/** The form of a claiming statement for a claim with or without a fence. */
const claimStatement = (statement: ClaimStatement, fence: LeaseFence | undefined) => (fence ? statement.fenced : statement.unfenced);

/** The messages a claim took, from what it read back and its own parameters. */
function claimedMessages([threadId, tenantId, assistantId, owner, , replicaId]: ClaimParams, rows: ClaimedRow[]): PendingMessage[] {
  return rows
    .filter((row) => row.id !== null)
    .map((row) =>
      withPresent<PendingMessage>(
        {
          id: row.id,
          threadId,
          content: row.content,
          priority: row.priority,
          sequence: String(row.sequence),
          status: "processing",
          createdAt: row.created_at,
          lockedBy: owner,
          lockedAt: row.locked_at,
          leaseExpiresAt: row.lease_expires_at,
          runStatus: "running",
          attempts: row.attempts,
          replicaId,
          // The claim stamps both with the same now().
          startedAt: new Date(row.locked_at!.getTime()),
        },
        { tenantId, assistantId, availableAt: row.available_at },
      ),
    );
}

/** $1 thread, $2 tenant, $3 assistant, checked. */
export function queueParams(thread: ThreadQueueRef): [string, string | null, string | null] {
  const { threadId, scope } = validateThreadQueue(thread);
  return [threadId, scope.tenantId, scope.assistantId];
}
