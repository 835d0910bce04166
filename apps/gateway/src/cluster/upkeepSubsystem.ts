import type { AgentInstanceManager, TaskService } from "@axiom-lattice/agent";
import { type Logger, type MaintenanceTask, OutboxRetentionJob, RetentionJob, itemExpirySweep } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { Subsystem } from "../context/subsystem";
import { threadExpirySweep } from "../langgraph/threadExpirySweep";
import type { GatewayStores } from "../stores/gatewayStores";

export interface UpkeepSubsystem extends Subsystem {
  runRetention: RetentionJob;
  runEventRetention: RetentionJob;
  threadExpiry: MaintenanceTask;
}

/**
 * What one replica at a time does for the cluster besides the scheduler's upkeep, in the order the
 * leader runs it. The queue's expired claims are not here: every replica's queue sweep takes them
 * back (agent package). Orphan recovery passes once per run lease: a task orphaned while its dead
 * replica's leases still lived is converged once they lapse.
 */
export function upkeepSubsystem({
  config,
  stores,
  logger,
  tasks,
  agents,
}: {
  config: GatewayConfig;
  stores: GatewayStores;
  logger: Logger;
  tasks: TaskService;
  agents: AgentInstanceManager;
}): UpkeepSubsystem {
  const { queue } = stores;
  const outboxRetention = new OutboxRetentionJob({ store: stores.outbox, retentionHours: config.outboxRetentionHours, logger });
  // Completed runs are history (…/runs, resume_stream of a finished message); nothing needs them to
  // make progress once they are hours old, the least retention there is.
  const runRetention = new RetentionJob({
    subject: "run",
    prune: (olderThanMs) => queue.pruneRunsOlderThan(olderThanMs),
    retentionHours: config.runRetentionHours,
    logger,
  });
  // A run's events serve clients resuming its stream; its outcome stays on its run record.
  const runEventRetention = new RetentionJob({
    subject: "run_event",
    prune: (olderThanMs) => stores.runEvents.pruneOlderThan(olderThanMs),
    retentionHours: config.runEventRetentionHours,
    logger,
  });
  const threadExpiry = threadExpirySweep({ threads: stores.threads, queue, agents, logger, intervalMs: config.threadTtlSweepMs });
  return {
    name: "upkeep",
    runRetention,
    runEventRetention,
    threadExpiry,
    maintenanceTasks: [
      ...outboxRetention.maintenanceTasks(),
      ...runRetention.maintenanceTasks(),
      ...runEventRetention.maintenanceTasks(),
      // Passes cut short (see sweepAdmissions): admissions themselves commit with their dispatch.
      tasks.dispatcher.maintenanceTask(config.runLeaseMs),
      itemExpirySweep(stores.items, { logger }),
      threadExpiry,
      ...(config.taskOrphanRecovery ? [tasks.recovery.maintenanceTask(config.runLeaseMs)] : []),
    ],
  };
}
