import {
  ABORTED_RUN_ERROR,
  FencedOutError,
  type Logger,
  type PendingMessage,
  type QueueScope,
  type ThreadRunHandle,
  type ThreadRunScope,
  tryAcquireThreadRun,
  writeUnderFence,
  queueScopeOf,
} from "@axiom-lattice/core";
import type { HandOverCode, MessageChunk, RunEvent } from "@axiom-lattice/protocols";
import { setImmediate, setTimeout as sleep } from "node:timers/promises";
import { detachedFromRunningGraph } from "../graph/detachedRun";
import { ActiveRun, type HandOverReason } from "./activeRun";
import { type RunOutcomeDetails, handedOverChunk, terminalChunk } from "./runChunks";
import { parseRunContent, taskMarkerOf } from "./runContent";
import { deleteRolledBackRuns } from "./runDeletion";
import { settleTaskRun, taskRunEnd } from "../tasks/taskSettlement";
import { type RuntimeContext, bufferKey, notifyPeers } from "./runtimeContext";
import { runTarget } from "./runTarget";
import { RunOutput } from "./runOutput";
import { isDatabaseOutage } from "./databaseOutage";
import { RetryBackoff } from "./retryBackoff";
import { executeRun } from "./runExecution";
import { graphFailureText, runFailureText } from "./runFailure";

export interface DrainResult {
  /** A peer holds the thread-run lease: it runs the thread's messages. */
  leaseContended: boolean;
  /** This replica runs no messages: its peers were woken to run the thread's instead. */
  leftToPeers?: boolean;
}

/** How a run ended: handed over unfinished, or completed, with what its completion claimed next. */
interface RunEnd {
  handedOver?: HandOverReason;
  /** The completion recorded the run's outcome (and logged its last events). */
  completed?: boolean;
  /** The thread's next message, claimed with the run's completion. */
  next?: PendingMessage;
  /** The claim with the completion was refused (the completion itself was recorded, if the claim was held). */
  fencedOut?: FencedOutError;
}

/** What a `run_handed_over` event says of each reason. */
const HAND_OVERS: Record<HandOverReason, { code: HandOverCode; reason: string }> = {
  lease_lost: { code: "LEASE_LOST", reason: "This replica lost the thread's run lease" },
  claim_lost: { code: "CLAIM_LOST", reason: "This replica lost its claim on the message" },
  settlement_failed: { code: "TASK_SETTLEMENT_FAILED", reason: "The run's task could not be settled" },
  shutdown: { code: "REPLICA_SHUTDOWN", reason: "This replica is shutting down" },
  database_unavailable: { code: "DATABASE_UNAVAILABLE", reason: "The database was unavailable" },
};

/** Pauses before running a message again after the database interrupted it: 250 ms, doubling to 8 s. */
const DATABASE_RETRY_FIRST_MS = 250;
const DATABASE_RETRY_MAX_MS = 8_000;

/** The least wait before looking again for a delayed message that should be due by now. */
const DELAYED_RECHECK_MS = 100;

/**
 * Drains one thread's queue on this replica: claim → run → complete → claim the next, one message at
 * a time and only while holding the thread-run lease, so across all replicas a thread never has two
 * runs at once. Lives while it drains; `onIdle` is called when it stops.
 */
export class ThreadProcessor {
  private readonly queueScope: QueueScope;
  private readonly logger: Logger;
  /** A wake-up arrived since the processor last looked at the queue. */
  private wanted = false;
  private draining: Promise<DrainResult> | undefined;
  private active: ActiveRun | undefined;
  private tenure: ThreadRunHandle | undefined;
  private readonly databaseRetry = new RetryBackoff(DATABASE_RETRY_FIRST_MS, DATABASE_RETRY_MAX_MS);
  /** The pause to take before the next tenure: the database interrupted the last run. */
  private retryDelayMs = 0;
  /** Aborted by `close`, to cut a pause short. */
  private readonly closing = new AbortController();

  constructor(
    private readonly scope: ThreadRunScope,
    private readonly context: RuntimeContext,
    private readonly onIdle: () => void,
  ) {
    this.queueScope = queueScopeOf(scope);
    this.logger = context.logger.child({ tenantId: scope.tenantId, assistantId: scope.assistantId, threadId: scope.threadId });
  }

  /**
   * Starts draining unless already draining (then the queue is looked at once more before stopping).
   * Settles when draining stops; never rejects.
   */
  wake(): Promise<DrainResult> {
    this.wanted = true;
    this.draining ??= detachedFromRunningGraph(() => this.drain());
    return this.draining;
  }

  /** Holds the thread-run lease now: it claims the thread's messages in order until none is left. */
  get holdsLease(): boolean {
    return this.tenure !== undefined;
  }

  /**
   * Stops the current run as aborted when its message's control record asks for it (an abort was
   * requested, on any replica); settles once its message is dealt with. Never rejects: a failed look
   * is left to the claim renewal's.
   */
  async applyAbortRequest(): Promise<void> {
    const run = this.active;
    if (!run) return;
    try {
      if (!(await this.abortRequested(run.messageId))) return;
    } catch (error) {
      this.logger.warn({ messageId: run.messageId, err: error }, "abort request not read; the claim renewal looks again");
      return;
    }
    run.stop("aborted");
    await run.finished;
  }

  /** Stops taking work: the current run is stopped and its message handed back to the queue. */
  async close(): Promise<void> {
    this.closing.abort();
    this.active?.stop("shutdown");
    await this.draining;
  }

  private async drain(): Promise<DrainResult> {
    let result: DrainResult = { leaseContended: false };
    try {
      while (this.wanted && !this.context.isClosed()) {
        this.wanted = false;
        await this.pauseAfterDatabaseOutage();
        result = await this.processUnderLease();
      }
    } catch (error) {
      this.logger.error({ err: error }, "thread processor failed; the sweep retries");
    } finally {
      // Synchronous with the loop's last check: a wake-up after it reaches a new processor.
      this.draining = undefined;
      this.onIdle();
    }
    return result;
  }

  private async pauseAfterDatabaseOutage(): Promise<void> {
    const delay = this.retryDelayMs;
    this.retryDelayMs = 0;
    if (delay > 0) await sleep(delay, undefined, { signal: this.closing.signal }).catch(() => {});
  }

  private async processUnderLease(): Promise<DrainResult> {
    const releaseSlot = await this.context.runSlots.acquire(this.scope.tenantId);
    try {
      if (this.context.isClosed()) {
        // A thread left waiting for a slot here goes to the peers now: their sweeps take up a thread
        // waiting with no owner only with a slot free, or once it waited a lease's TTL.
        await notifyPeers(this.context, this.scope);
        return { leaseContended: false };
      }
      return await this.processWithSlot();
    } finally {
      releaseSlot();
    }
  }

  private async processWithSlot(): Promise<DrainResult> {
    const { queue, leases, claimLeaseMs, threadRunTtlMs, replicaId, logger, observer } = this.context;
    const lease = await tryAcquireThreadRun(this.scope, { store: leases, ttlMs: threadRunTtlMs, replicaId, logger });
    if (!lease) return { leaseContended: true };
    this.tenure = lease;
    // The tenure ended as it should: it lets the lease go with a last look at the thread (below).
    let endedWell = false;
    try {
      // This claim answers every wake-up so far (each is sent after its message is queued): only a
      // later one calls for another tenure. Without this, the wake-up of the very message about to
      // run (this replica's own notice, a sweep) would queue the thread for a slot again after it.
      this.wanted = false;
      // The thread-run lease is the one fact of ownership: messages are claimed only under it, so
      // every claim left on the thread belongs to an earlier holder that is gone, however long its
      // claim still has to live. They are all taken back as the first message is claimed (one
      // statement), keeping their queue positions, so the oldest unfinished message runs before
      // anything newer. Every write of the tenure, this one first, is fenced with it: a replica paused
      // past its lease writes nothing once it wakes.
      const { reclaimed, claimed } = await writeUnderFence(lease, (fence) =>
        queue.takeBackAndClaim(this.scope, { owner: lease.holder, leaseMs: claimLeaseMs, limit: 1, fence }),
      );
      if (reclaimed > 0) observer.queueReclaimed?.({ count: reclaimed });
      let message: PendingMessage | undefined = claimed[0];
      while (message) {
        if (lease.signal.aborted || this.context.isClosed()) {
          // The last run's completion claimed it as the tenure ended: hand it back rather than start it.
          await writeUnderFence(lease, (fence) => queue.resetProcessingToPending(this.scope, { fence }));
          break;
        }
        // A run is a long chain of promise continuations that never yields to I/O; let waiting
        // requests through between runs so a busy queue cannot starve the HTTP server.
        await setImmediate();
        observer.queueClaimed?.();
        const { handedOver, next, fencedOut } = await this.runMessage(message, lease);
        if (fencedOut) throw fencedOut;
        if (handedOver === "database_unavailable") this.retryDelayMs = this.databaseRetry.next();
        else if (!handedOver) this.databaseRetry.reset();
        if (handedOver === "claim_lost" || handedOver === "settlement_failed" || handedOver === "database_unavailable") {
          // The message stays `processing` (our claim lapsed, its task could not be settled yet, or
          // the database failed the run) until a holder takes it back: resetting it now would need
          // the database that may be down. Start a new tenure (after a pause, when the database
          // failed), which takes it back before claiming anything newer and runs it again from its
          // checkpoint.
          this.wanted = true;
          break;
        }
        // Claimed by the run's completion, unless the tenure ends there (see `claimsNext`).
        message = next;
      }
      endedWell = true;
    } catch (error) {
      if (!(error instanceof FencedOutError)) throw error;
      // A newer tenure took the thread over while this one was paused: it runs the thread's messages.
      this.logger.warn({ err: error }, "thread-run lease taken over; its new holder runs the thread");
      return { leaseContended: true };
    } finally {
      this.tenure = undefined;
      if (!endedWell) await lease.release();
    }
    // A message queued after the last empty claim, whose wake-up found the lease still held, would
    // otherwise wait for the sweep: look once more as the lease is released (the look sees every add
    // committed before the release), in the same round trip where the queue can release it. A replica
    // shutting down leaves such a message to its peers, woken now rather than at their next sweep.
    const pending = await this.releaseAndLook(lease);
    if (pending.some((message) => message.availableAt === undefined)) {
      if (this.context.isClosed()) await notifyPeers(this.context, this.scope);
      else this.wanted = true;
    } else {
      this.wakeWhenDue(pending);
    }
    return { leaseContended: false };
  }

  /** Ends the tenure, then reads the thread's pending messages: one round trip with joined stores. */
  private async releaseAndLook(lease: ThreadRunHandle): Promise<PendingMessage[]> {
    const { queue, joinedStores } = this.context;
    if (!joinedStores) {
      await lease.release();
      return queue.getPendingMessages(this.scope);
    }
    const afterReleasing = { key: lease.key, holder: lease.holder };
    return lease.releaseThrough(() => queue.getPendingMessages(this.scope, { afterReleasing }));
  }

  /**
   * Delayed messages only: wakes this thread's processing when the first comes due, by this replica's
   * clock (at least {@link DELAYED_RECHECK_MS} on, so a clock ahead of the database's cannot spin
   * claims that find nothing). Should this replica stop first, a peer's sweep finds it once due.
   */
  private wakeWhenDue(pending: PendingMessage[]): void {
    if (pending.length === 0 || this.context.isClosed()) return;
    const due = Math.min(...pending.map((message) => message.availableAt!.getTime()));
    setTimeout(() => void this.context.wake(this.scope), Math.max(due - Date.now(), DELAYED_RECHECK_MS)).unref();
  }

  /**
   * Whether the tenure goes on to the thread's next message after this run: then the run's completion
   * claims it too. Another thread waiting for a slot this one would go to ends it between runs (the
   * lease with it, as a waiting thread holds none), and the thread queues again behind it, so threads
   * take turns and one with a long queue cannot keep a slot from the others, of its tenant or another.
   */
  private claimsNext(lease: ThreadRunHandle): boolean {
    return !lease.signal.aborted && !this.context.isClosed() && !this.context.runSlots.othersWaiting(this.scope.tenantId);
  }

  /** Runs one claimed message; says why it was handed over unfinished, or what its completion claimed next. */
  private async runMessage(message: PendingMessage, lease: ThreadRunHandle): Promise<RunEnd> {
    const claimedAt = Date.now();
    const run = new ActiveRun(message.id);
    this.active = run;
    try {
      const output = await this.openOutput(message, lease);
      return output instanceof RunOutput ? await this.runAttempt(message, lease, run, output, claimedAt) : { handedOver: output };
    } finally {
      this.active = undefined;
      run.finish();
    }
  }

  private async runAttempt(message: PendingMessage, lease: ThreadRunHandle, run: ActiveRun, output: RunOutput, claimedAt: number): Promise<RunEnd> {
    const onLeaseLost = () => run.stop("lease_lost");
    if (lease.signal.aborted) onLeaseLost();
    lease.signal.addEventListener("abort", onLeaseLost, { once: true });
    const stopClaimHeartbeat = this.keepClaim(message.id, lease.holder, run);
    try {
      const taskId = taskMarkerOf(message.content)?.taskId;
      const executed = await this.execute(message, lease, run, output, claimedAt, taskId);
      const result = "handOver" in executed || !taskId ? executed : await this.settle(message, lease, taskId, executed);
      if ("handOver" in result) return { handedOver: await this.handOver(result.handOver, output, lease) };
      // Every event is logged before the outcome's (by the completion itself where it can): a follower
      // elsewhere that sees the outcome finds every event before it, and the run completed.
      const outcomeChunk = terminalChunk(result);
      const events = await output.withOutcome(outcomeChunk);
      let recorded: RunEnd = {};
      try {
        recorded = await this.complete(message, lease, { ...result, events }, claimedAt);
      } finally {
        output.settleOutcome(recorded.completed === true);
      }
      if (recorded.handedOver) return { handedOver: await this.handOver(recorded.handedOver, output, lease) };
      if (!recorded.completed) output.push(outcomeChunk);
      return recorded;
    } finally {
      stopClaimHeartbeat();
      lease.signal.removeEventListener("abort", onLeaseLost);
      await output.end();
    }
  }

  /**
   * The output of this attempt of the message; why it could not start when the database keeps it
   * from starting, or a newer tenure took the thread over (a re-run must log its start first).
   */
  private async openOutput(message: PendingMessage, lease: ThreadRunHandle): Promise<RunOutput | HandOverReason> {
    const { buffers, runEvents, joinedStores, runEventFlushMs, replicaId, observer } = this.context;
    const deps = { buffers, runEvents: runEvents?.log, loggedWithCompletion: joinedStores, runEventFlushMs, replicaId, logger: this.logger };
    try {
      return await RunOutput.open(deps, bufferKey(this.scope, message), { ...this.scope, messageId: message.id }, message.attempts, lease);
    } catch (error) {
      const reason = error instanceof FencedOutError ? "lease_lost" : isDatabaseOutage(error) ? "database_unavailable" : undefined;
      if (!reason) throw error;
      observer.runHandedOver?.({ reason });
      this.logger.warn({ messageId: message.id, err: error }, "re-run not started; the message runs again");
      return reason;
    }
  }

  /**
   * Records the run's outcome on its message; the database failing the write leaves the message to run
   * again. When the tenure goes on, the same statement claims the thread's next message: one round
   * trip (and one commit) between two runs instead of two.
   */
  private async complete(message: PendingMessage, lease: ThreadRunHandle, outcome: RunOutcomeDetails & { events: RunEvent[] }, claimedAt: number): Promise<RunEnd> {
    const { queue, observer, claimLeaseMs } = this.context;
    const holder = lease.holder;
    try {
      let completed: boolean;
      const end: RunEnd = {};
      if (this.claimsNext(lease)) {
        // As before the tenure's first claim: this claim answers every wake-up so far.
        this.wanted = false;
        const answer = await queue.completeAndClaimNext(this.scope, message.id, outcome, { owner: holder, leaseMs: claimLeaseMs, limit: 1, fence: lease.fence });
        completed = answer.completed;
        if (answer.claimed === null) {
          // The claim was refused: a newer tenure runs the thread. It ends this one at once, as any refused write does.
          end.fencedOut = new FencedOutError(lease.fence);
          lease.revoke(end.fencedOut);
        } else {
          end.next = answer.claimed[0];
        }
      } else {
        completed = await queue.completeMessage(message.id, holder, outcome);
      }
      end.completed = completed;
      if (completed) {
        const { tenantId, assistantId, threadId } = this.scope;
        observer.runFinished?.({ messageId: message.id, tenantId, assistantId, threadId, status: outcome.status, durationMs: Date.now() - claimedAt });
        this.context.onRunCompleted?.({ scope: this.scope, message, status: outcome.status, ...(outcome.error === undefined ? {} : { error: outcome.error }) });
      } else {
        observer.runHandedOver?.({ reason: "claim_lost" });
        this.logger.warn({ messageId: message.id }, "claim lost before completion; a peer re-runs the message from its checkpoint");
      }
      return end;
    } catch (error) {
      if (!isDatabaseOutage(error)) throw error;
      this.logger.warn({ messageId: message.id, err: error }, "run's outcome not recorded: the database is unavailable; the message runs again");
      return { handedOver: "database_unavailable" };
    }
  }

  /**
   * Settles the task the run executed, before its message completes: a crash in between re-runs the
   * message, which settles again (idempotently). A settlement that fails leaves the message to retry.
   */
  private async settle(message: PendingMessage, lease: ThreadRunHandle, taskId: string, outcome: RunOutcomeDetails): Promise<RunOutcomeDetails | { handOver: HandOverReason }> {
    try {
      const end = await taskRunEnd(this.context, this.scope, message.id, outcome);
      await writeUnderFence(lease, (fence) => settleTaskRun(this.context, this.scope.tenantId, taskId, message.id, end, fence));
      return outcome;
    } catch (error) {
      if (error instanceof FencedOutError) return { handOver: "lease_lost" };
      this.logger.warn({ messageId: message.id, taskId, err: error }, "task settlement failed; the run's message is retried");
      return { handOver: isDatabaseOutage(error) ? "database_unavailable" : "settlement_failed" };
    }
  }

  /** The outcome to record, or why this replica stopped the run without finishing it. */
  private async execute(
    message: PendingMessage,
    lease: ThreadRunHandle,
    run: ActiveRun,
    output: RunOutput,
    claimedAt: number,
    taskId: string | undefined,
  ): Promise<RunOutcomeDetails | { handOver: HandOverReason }> {
    let firstChunk = true;
    const emit = async (chunk: MessageChunk) => {
      await output.room(run.signal);
      if (firstChunk) {
        firstChunk = false;
        this.context.observer.runFirstChunk?.({ delayMs: Date.now() - claimedAt });
      }
      output.push(chunk);
    };
    let deployed = false;
    try {
      const content = parseRunContent(message.content);
      const rolledBack = content.rollback ? await deleteRolledBackRuns(this.context, this.scope, content.rollback) : [];
      const taskRun = taskId ? { taskId, messageId: message.id } : undefined;
      const target = await runTarget(this.context, this.scope, { messageId: message.id, content, lease, ...(taskRun ? { taskRun } : {}) });
      deployed = target.deployed;
      return await executeRun({ ...target, threadId: this.scope.threadId, messageId: message.id, content, rolledBack, signal: run.signal, emit });
    } catch (error) {
      const reason = run.stopReason;
      if (reason === "aborted") return { status: "aborted", error: ABORTED_RUN_ERROR };
      if (reason) return { handOver: reason };
      if (isDatabaseOutage(error)) {
        this.logger.warn({ messageId: message.id, err: error }, "run interrupted: the database is unavailable; the message runs again from its checkpoint");
        return { handOver: "database_unavailable" };
      }
      const failure = deployed ? graphFailureText(error) : runFailureText(error);
      // A failed run is an outcome the client is told of, not a fault of this replica: its reason at
      // warn, and the stack only for whoever asks for debug.
      this.logger.warn({ messageId: message.id, error: failure, durationMs: Date.now() - claimedAt }, "run failed");
      this.logger.debug({ messageId: message.id, err: error }, "run failed: stack");
      return { status: "error", error: failure };
    }
  }

  /**
   * Leaves the message unfinished and tells its stream why; the stream goes on with the next attempt,
   * which starts with `run_resumed`. A lost lease means a peer may own the message now: leave it alone
   * (as with a lost claim, the next holder of the lease takes it back). On shutdown the lease is still
   * ours, so no peer can hold the thread's claims: hand the message back to the queue at once, after
   * the event is logged (the next attempt's events must follow it).
   */
  private async handOver(reason: HandOverReason, output: RunOutput, lease: ThreadRunHandle): Promise<HandOverReason> {
    const { observer, replicaId, queue } = this.context;
    observer.runHandedOver?.({ reason });
    output.push(handedOverChunk({ ...HAND_OVERS[reason], replica: replicaId }));
    if (reason === "shutdown") {
      await output.flush();
      await writeUnderFence(lease, (fence) => queue.resetProcessingToPending(this.scope, { fence }));
    }
    return reason;
  }

  /** Whether an abort of the message's run was requested. */
  private async abortRequested(messageId: string): Promise<boolean> {
    return (await this.context.queue.getMessage(messageId, this.queueScope))?.abortRequestedAt !== undefined;
  }

  /**
   * Renews the message's claim while it runs; a refused renewal stops the run. Each renewal also
   * looks at the message's control record, so an abort whose notice was lost stops the run within a
   * third of the claim's lease anyway.
   */
  private keepClaim(messageId: string, owner: string, run: ActiveRun): () => void {
    const { queue, claimLeaseMs } = this.context;
    let renewing = false;
    const timer = setInterval(async () => {
      if (renewing) return;
      renewing = true;
      try {
        if ((await queue.renewClaim([messageId], owner, claimLeaseMs)) === 0) run.stop("claim_lost");
        else if (await this.abortRequested(messageId)) run.stop("aborted");
      } catch (error) {
        this.logger.warn({ messageId, err: error }, "claim renewal failed; retrying");
      } finally {
        renewing = false;
      }
    }, Math.max(1, Math.floor(claimLeaseMs / 3)));
    return () => clearInterval(timer);
  }
}
