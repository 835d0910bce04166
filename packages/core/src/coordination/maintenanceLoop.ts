import { setTimeout as sleep } from "node:timers/promises";
import type { LeaseStore } from "@axiom-lattice/protocols";
import { defaultLogger, type Logger } from "../logging/logger";
import type { ReplicaLeaseOptions } from "./heldLease";
import { LeaderLoop, type LeaderTenure, leaderLeaseKey } from "./leaderLoop";
import { MAINTENANCE_INTERVAL_MS, maintenanceLeaseTtlMs } from "../defaults";

/** The leadership the maintenance loop contends for. */
export const MAINTENANCE_LEADERSHIP = "maintenance";
/** The lease the current maintenance leader holds (its holder names the leader's replica). */
export const MAINTENANCE_LEASE_KEY = leaderLeaseKey(MAINTENANCE_LEADERSHIP);

/** Cluster-wide upkeep that one replica at a time should do (requeueing abandoned work, retention). */
export interface MaintenanceTask {
  /** Names the task in log lines. */
  readonly name: string;
  /** Period between runs on the leader. */
  readonly intervalMs: number;
  /** Wait after a replica starts leading before the first run (default: run at once). */
  readonly initialDelayMs?: number;
  /** One run; a rejection is logged and the task runs again at its next period. */
  run(tenure: LeaderTenure): Promise<unknown>;
}

export interface MaintenanceLoopOptions extends Omit<ReplicaLeaseOptions, "logger"> {
  /** Where the loop and its lease log; default: a new {@link defaultLogger}. */
  logger?: Logger;
  store: LeaseStore;
  tasks: readonly MaintenanceTask[];
  /** How often a follower bids for leadership (default 2 s); the lease TTL is a few of these. */
  intervalMs?: number;
}

/**
 * Runs the maintenance tasks on one replica at a time, continuously: the replica holding
 * `leader:maintenance` runs each task every `intervalMs` of its own, one after another, until it loses
 * the lease or stops; a peer then takes over within a lease TTL and starts every task afresh.
 */
export class MaintenanceLoop {
  private readonly leader: LeaderLoop;
  private readonly log: Logger;

  constructor({ store, tasks, intervalMs = MAINTENANCE_INTERVAL_MS, logger, replicaId }: MaintenanceLoopOptions) {
    const base = logger ?? defaultLogger();
    this.log = base.child({ phase: "maintenance" });
    this.leader = new LeaderLoop({
      store,
      name: MAINTENANCE_LEADERSHIP,
      ttlMs: maintenanceLeaseTtlMs(intervalMs),
      bidIntervalMs: intervalMs,
      logger: base,
      replicaId,
      lead: (tenure) => this.runTasks(tasks, tenure),
    });
  }

  /** Whether this replica is the maintenance leader right now. */
  get leading(): boolean {
    return this.leader.leading;
  }

  start(): void {
    this.leader.start();
  }

  /** Stops after the task in progress and hands leadership over. */
  stop(): Promise<void> {
    return this.leader.stop();
  }

  private async runTasks(tasks: readonly MaintenanceTask[], tenure: LeaderTenure): Promise<void> {
    const startedAt = Date.now();
    const dueAt = new Map(tasks.map((task) => [task, startedAt + (task.initialDelayMs ?? 0)]));
    // Nothing to do, but keep the tenure: giving the lease up would only start a round of bids.
    if (dueAt.size === 0) return new Promise((resolve) => tenure.signal.addEventListener("abort", () => resolve(), { once: true }));
    while (!tenure.signal.aborted) {
      for (const [task, due] of dueAt) {
        if (tenure.signal.aborted || due > Date.now()) continue;
        try {
          await task.run(tenure);
        } catch (error) {
          this.log.warn({ task: task.name, err: error }, `maintenance task ${task.name} failed; it runs again next period`);
        }
        dueAt.set(task, Date.now() + task.intervalMs);
      }
      const next = Math.min(...dueAt.values());
      await sleep(Math.max(0, next - Date.now()), undefined, { signal: tenure.signal, ref: false }).catch(() => undefined);
    }
  }
}
