import { type AgentInstanceManager, type TaskMessageDeps, stopRunsOfCancelledTasks } from "@axiom-lattice/agent";
import { type Logger, taskOutboxHandlers } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { Subsystem } from "../context/subsystem";
import type { GatewayStores } from "../stores/gatewayStores";
import { type GatewayTasks, createGatewayTasks } from "./gatewayTasks";

export interface TasksSubsystem extends Subsystem, GatewayTasks {}

/**
 * The task service, its notifiers (peers' task events reach local listeners through the outbox) and
 * its dispatcher, which takes admissions from the start: built before the agent runtime it wakes
 * (`wake`), and nothing is admitted before the gateway is built.
 */
export function tasksSubsystem(
  config: Pick<GatewayConfig, "replicaId" | "runLeaseMs">,
  stores: GatewayStores,
  logger: Logger,
  wake: TaskMessageDeps["wake"],
): TasksSubsystem {
  const tasks = createGatewayTasks(config, stores, logger, wake);
  tasks.service.dispatcher.start();
  return {
    name: "tasks",
    ...tasks,
    outboxHandlers: taskOutboxHandlers(tasks.notifiers),
    stop: () => tasks.service.dispatcher.stop(),
  };
}

/** Stops the runs of a task once it is cancelled, on whichever replica hears it. */
export function cancelledRunsSubsystem({ tasks, agents }: { tasks: GatewayTasks; agents: AgentInstanceManager }): Subsystem {
  const stop = stopRunsOfCancelledTasks({ tasks: tasks.service.runtime, agents, lifecycle: tasks.notifiers.taskLifecycle });
  return { name: "cancelled-runs", stop };
}
