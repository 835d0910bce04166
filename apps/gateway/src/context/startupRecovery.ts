import { RecoveryActor, type TaskService } from "@axiom-lattice/agent";
import { type DefaultScheduleClient, type Logger, type OutboxPoller, runAsLeader } from "@axiom-lattice/core";
import type { LeaseStore } from "@axiom-lattice/protocols";
import type { GatewayConfig } from "../config";
import type { McpServerManager } from "../mcp/mcpServerManager";

/**
 * Starts the outbox poller, then runs startup recovery on exactly one replica (leader gate) while
 * every other replica arms its schedules: the poller's cursor is taken before the schedules are
 * read, so a peer's change made in between still arrives.
 */
export async function recoverGateway({
  config,
  logger,
  leases,
  poller,
  mcp,
  tasks,
  schedules,
}: {
  config: Pick<GatewayConfig, "replicaId" | "taskOrphanRecovery">;
  logger: Logger;
  leases: LeaseStore;
  poller: OutboxPoller;
  mcp: McpServerManager;
  tasks: TaskService;
  schedules: DefaultScheduleClient;
}): Promise<void> {
  await poller.start();
  // After the poller's cursor: a change made while restoring still arrives and is reconciled.
  logger.info({ phase: "startup", mcpServers: await mcp.restore() }, "MCP servers restored");
  const startupRecovery = async () => ({
    orphanedTasks: config.taskOrphanRecovery ? await tasks.recovery.recoverOrphanedTasks(RecoveryActor.SWEEP) : "disabled",
    schedules: await schedules.restore(),
  });
  const outcome = await runAsLeader(leases, "startup-recovery", startupRecovery, { hold: true, replicaId: config.replicaId, logger });
  if (outcome.ran) {
    logger.info({ phase: "startup_recovery", result: outcome.result }, "startup recovery ran on this replica");
  } else {
    logger.info({ phase: "startup_recovery" }, "startup recovery skipped (another replica leads)");
    await schedules.armActive();
  }
}
