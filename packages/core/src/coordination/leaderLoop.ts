import { setTimeout as sleep } from "node:timers/promises";
import type { LeaseStore } from "@axiom-lattice/protocols";
import { defaultLogger, type Logger } from "../logging/logger";
import { acquireLease, type ReplicaLeaseOptions } from "./heldLease";
import { uniqueHolder } from "./holder";

/** The lease a leader holds for `name`: `leader:<name>` (what `runAsLeader` and {@link LeaderLoop} take). */
export const leaderLeaseKey = (name: string): string => `leader:${name}`;

/** One replica's time as leader, as the work it leads sees it. */
export interface LeaderTenure {
  /** Aborted when the tenure ends: the lease was lost (taken over, not renewed) or the loop stops. */
  readonly signal: AbortSignal;
  /** The lease's fencing token for this tenure. */
  readonly token: string;
}

export interface LeaderLoopOptions extends Omit<ReplicaLeaseOptions, "logger"> {
  /** Where the loop and its lease log; default: a new {@link defaultLogger}. */
  logger?: Logger;
  store: LeaseStore;
  /** The leadership contended for; the lease key is `leader:<name>`. */
  name: string;
  /** The leader lease's TTL, renewed every third of it: a dead leader is replaced within it. */
  ttlMs: number;
  /** How often a replica that is not leading bids for the lease. */
  bidIntervalMs: number;
  /**
   * The work of one tenure: runs while this replica leads and must settle soon after `signal` aborts.
   * Returning (or throwing) ends the tenure early: the lease is released for a peer to take.
   */
  lead(tenure: LeaderTenure): Promise<void>;
}

/**
 * Keeps one replica at a time leading `name`, for as long as it lives: every replica bids for
 * `leader:<name>` every `bidIntervalMs`; the winner renews the lease with its heartbeat and runs
 * `lead` until it loses the lease or stops. Stopping releases the lease, so a peer takes over at its
 * next bid; a leader that dies lets the lease expire, so a peer takes over within `ttlMs` plus a bid.
 */
export class LeaderLoop {
  private readonly log: Logger;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private tenure: LeaderTenure | undefined;

  constructor(private readonly options: LeaderLoopOptions) {
    this.log = (options.logger ?? defaultLogger()).child({ phase: "leader", leadership: options.name });
  }

  /** Whether this replica leads right now. */
  get leading(): boolean {
    return this.tenure !== undefined && !this.tenure.signal.aborted;
  }

  /** Starts bidding (the first bid at once). Idempotent. */
  start(): void {
    if (this.running || this.stopping.signal.aborted) return;
    this.running = this.run();
  }

  /** Ends the tenure (releasing the lease) or stops bidding; settles once `lead` has returned. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const { store, name, ttlMs, bidIntervalMs, replicaId } = this.options;
    const key = leaderLeaseKey(name);
    while (!this.stopping.signal.aborted) {
      try {
        const lease = await acquireLease(store, key, uniqueHolder(replicaId), ttlMs, { logger: this.log });
        if (lease) await this.lead(lease.token, lease.signal, lease.release);
      } catch (error) {
        this.log.warn({ err: error }, "leadership bid failed; bidding again");
      }
      await sleep(bidIntervalMs, undefined, { signal: this.stopping.signal, ref: false }).catch(() => undefined);
    }
  }

  private async lead(token: string, leaseSignal: AbortSignal, release: () => Promise<void>): Promise<void> {
    const tenure = { token, signal: AbortSignal.any([leaseSignal, this.stopping.signal]) };
    this.tenure = tenure;
    this.log.info({ token }, `leading ${this.options.name}`);
    try {
      await this.options.lead(tenure);
    } catch (error) {
      this.log.error({ err: error }, `${this.options.name} failed; handing leadership over`);
    } finally {
      this.tenure = undefined;
      await release();
      const reason = leaseSignal.aborted ? "lease lost" : this.stopping.signal.aborted ? "stopping" : "work ended";
      this.log.info({ token, reason }, `stopped leading ${this.options.name}`);
    }
  }
}
