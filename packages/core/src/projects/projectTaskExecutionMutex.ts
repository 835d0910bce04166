import type { ErrorCode, LeaseStore } from "@axiom-lattice/protocols";
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { type HeldLease, acquireLease } from "../coordination/heldLease";
import { uniqueHolder } from "../coordination/holder";
import { LeaseArgumentError } from "../coordination/leaseArguments";
import { LeaseAcquireTimeoutError } from "../coordination/withLease";
import {
  PROJECT_TASK_MACHINE_ACQUIRE_TIMEOUT_MS,
  PROJECT_TASK_MACHINE_LEASE_TTL_MS,
  PROJECT_TASK_MACHINE_MAX_RETRY_DELAY_MS,
  PROJECT_TASK_MACHINE_RETRY_DELAY_MS,
} from "../defaults";
import { getReplicaId } from "../identity/replicaId";
import { defaultLogger, type Logger } from "../logging/logger";

/** One project task machine: an assistant's work on one project of one tenant. */
export interface ProjectTaskScope {
  tenantId: string;
  assistantId: string;
  projectId: string;
}

/** What an exclusive operation receives. */
export interface ProjectTaskSection {
  /**
   * Fencing token of the distributed lease held around this operation: pass it to the writes it makes,
   * so a store can refuse them once a newer holder exists. `undefined` without a lease store.
   */
  fencingToken: string | undefined;
  /** Aborted when the lease is lost (or the caller's signal aborts): stop writing. */
  signal: AbortSignal;
}

/** An operation asked for the machine it already holds: it would wait for itself forever. */
export class MutexReentryError extends Error {
  readonly code = "MUTEX_REENTRY" satisfies ErrorCode;

  constructor(readonly leaseKey: string) {
    super(`Project task machine "${leaseKey}" is already held by this operation; it is not reentrant`);
    this.name = "MutexReentryError";
  }
}

export interface ProjectTaskExecutionMutexOptions {
  /** The cross-replica lease store; without one (a single process) sections run under the local lock alone. */
  leaseStore?: LeaseStore;
  /** The replica named in the lease holder; default `getReplicaId()`. */
  replicaId?: string;
  ttlMs?: number;
  acquireTimeoutMs?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Where lease trouble is logged; default: a new {@link defaultLogger}. */
  logger?: Logger;
}

/** The distributed lease of one machine. Parts are encoded, so no two scopes share a key. */
export function projectTaskMachineLeaseKey({ tenantId, assistantId, projectId }: ProjectTaskScope): string {
  return `project-task-machine:${encodeURIComponent(tenantId)}:${encodeURIComponent(assistantId)}:${encodeURIComponent(projectId)}`;
}

function validateScope(scope: unknown): ProjectTaskScope {
  const checked = (typeof scope === "object" && scope !== null ? scope : {}) as Record<string, unknown>;
  for (const part of ["tenantId", "assistantId", "projectId"] as const) {
    const value = checked[part];
    if (typeof value !== "string" || value.length === 0) throw new LeaseArgumentError(`Project task scope ${part} must be a non-empty string`);
  }
  return { tenantId: checked.tenantId as string, assistantId: checked.assistantId as string, projectId: checked.projectId as string };
}

/** How one call of {@link ProjectTaskExecutionMutex.runExclusive} waits for the machine. */
export interface ExclusiveWait {
  /** Gives up the wait (and aborts the section's signal). */
  signal?: AbortSignal;
  /**
   * How long this call may wait for the machine, for this process's earlier callers and for the
   * lease together (default: the mutex's `acquireTimeoutMs`); then {@link LeaseAcquireTimeoutError}.
   * An HTTP request passes a short one, so a machine held by a dead replica never holds the request.
   */
  acquireTimeoutMs?: number;
}

/** A machine held by the current async context; `active` turns false when its operation ends. */
interface Holding {
  key: string;
  active: boolean;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Serialises the operations of one project task machine. Within a process, a FIFO lock per machine:
 * callers must share one instance. When a lease store is configured, each operation also holds the
 * distributed lease `project-task-machine:<tenant>:<assistant>:<project>`, heartbeated while it runs,
 * so operations on one machine serialise across replicas too. Non-reentrant: an operation that asks for
 * its own machine again fails with {@link MutexReentryError} instead of waiting for itself.
 */
export class ProjectTaskExecutionMutex {
  /** Per machine, the promise the next arrival waits for (resolves when everyone queued before it is done). */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new AsyncLocalStorage<readonly Holding[]>();
  private readonly logger: Logger;

  constructor(private readonly options: ProjectTaskExecutionMutexOptions = {}) {
    this.logger = options.logger ?? defaultLogger();
  }

  /** Runs `operation` exclusively for `scope`, waiting for the machine as `wait` says. */
  async runExclusive<T>(scope: ProjectTaskScope, operation: (section: ProjectTaskSection) => Promise<T>, wait: ExclusiveWait = {}): Promise<T> {
    const key = projectTaskMachineLeaseKey(validateScope(scope));
    const outer = this.held.getStore() ?? [];
    if (outer.some((holding) => holding.active && holding.key === key)) throw new MutexReentryError(key);

    const { signal, acquireTimeoutMs = this.options.acquireTimeoutMs ?? PROJECT_TASK_MACHINE_ACQUIRE_TIMEOUT_MS } = wait;
    const deadline = Date.now() + acquireTimeoutMs;
    const releaseLocal = await this.acquireLocal(key, signal, acquireTimeoutMs);
    const holding: Holding = { key, active: true };
    try {
      return await this.held.run([...outer, holding], () => this.runHoldingLease(key, operation, signal, deadline));
    } finally {
      holding.active = false;
      releaseLocal();
    }
  }

  /** Waits for this process's earlier callers of `key`, at most `timeoutMs`; returns the release of the turn. */
  private async acquireLocal(key: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<() => void> {
    signal?.throwIfAborted();
    const startedAt = Date.now();
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => turn);
    this.tails.set(key, tail);
    const releaseTurn = () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    // A caller that gives up (or runs out of time) releases its turn at once, so those behind it
    // still go in order.
    let onAbort = () => {};
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal!.reason);
      timer = setTimeout(() => reject(new LeaseAcquireTimeoutError(key, Date.now() - startedAt)), timeoutMs);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([previous, givenUp]);
    } catch (error) {
      releaseTurn();
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    return releaseTurn;
  }

  private async runHoldingLease<T>(
    key: string,
    operation: (section: ProjectTaskSection) => Promise<T>,
    signal: AbortSignal | undefined,
    deadline: number,
  ): Promise<T> {
    const store = this.options.leaseStore;
    if (!store) return operation({ fencingToken: undefined, signal: signal ?? NEVER_ABORTED });
    const lease = await this.waitForLease(store, key, signal, deadline);
    try {
      return await operation({ fencingToken: lease.token, signal: signal ? AbortSignal.any([lease.signal, signal]) : lease.signal });
    } finally {
      await lease.release();
    }
  }

  /** Retries with doubling delays until the lease is won; {@link LeaseAcquireTimeoutError} once `deadline` passed. */
  private async waitForLease(store: LeaseStore, key: string, signal: AbortSignal | undefined, deadline: number): Promise<HeldLease> {
    const {
      replicaId = getReplicaId(),
      ttlMs = PROJECT_TASK_MACHINE_LEASE_TTL_MS,
      retryDelayMs = PROJECT_TASK_MACHINE_RETRY_DELAY_MS,
      maxRetryDelayMs = PROJECT_TASK_MACHINE_MAX_RETRY_DELAY_MS,
    } = this.options;
    // One holder per acquisition: a store hands a holder its own live lease back.
    const holder = uniqueHolder(replicaId);
    const startedAt = Date.now();
    let delay = retryDelayMs;
    for (;;) {
      signal?.throwIfAborted();
      const lease = await acquireLease(store, key, holder, ttlMs, { logger: this.logger });
      if (lease) return lease;
      const left = deadline - Date.now();
      if (left <= 0) throw new LeaseAcquireTimeoutError(key, Date.now() - startedAt);
      await sleep(Math.min(delay, left), undefined, signal ? { signal } : undefined);
      delay = Math.min(delay * 2, maxRetryDelayMs);
    }
  }
}
