import type { AgentInstanceManager, CompletedRun } from "@axiom-lattice/agent";
import type { Logger } from "@axiom-lattice/core";
import type { GatewayConfig } from "../config";
import type { LateBound } from "../context/lateBound";
import type { Subsystem } from "../context/subsystem";
import type { GatewayStores } from "../stores/gatewayStores";
import { taskPushNotifications } from "./taskPushNotifications";

export interface A2aSubsystem extends Subsystem {
  /** Told of every run the runtime of this replica ends: A2A clients hear of their tasks' stops. */
  onRunCompleted: (run: CompletedRun) => void;
}

/**
 * Every assistant as an A2A agent: a dialect over the engine's threads and runs (its routes, in
 * `a2aRoutes`, registered with the others in `server.ts`), with nothing of its own to start, stop or
 * hear. Its one part that runs outside a request: a task's push notifications, sent when its run ends.
 */
export function a2aSubsystem({
  stores,
  config,
  logger,
  agents,
}: {
  stores: Pick<GatewayStores, "a2aPushConfigs" | "queue">;
  config: Pick<GatewayConfig, "upstream">;
  logger: Logger;
  agents: LateBound<AgentInstanceManager>;
}): A2aSubsystem {
  return { name: "a2a", onRunCompleted: taskPushNotifications({ stores, agents: () => agents.get(), egress: config.upstream.egress, logger }) };
}
