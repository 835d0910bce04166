import type { AgentInstanceManager, CompletedRun } from "@axiom-lattice/agent";
import { type EgressPolicy, type Logger, egressFetch } from "@axiom-lattice/core";
import type { A2aPushConfig, A2aWireVersion } from "@axiom-lattice/protocols";
import type { StreamResponse, Task } from "@a2a-js/sdk";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import { V1PushNotificationSerializer } from "@a2a-js/sdk/server";
import type { GatewayStores } from "../stores/gatewayStores";
import { taskIdOfRun, taskRuns } from "./taskRuns";
import { toTask } from "./taskView";

/** How long a receiver may take to answer. */
const PUSH_TIMEOUT_MS = 10_000;

/** The header a receiver checks a notification against the token its client set. */
const TOKEN_HEADER = "X-A2A-Notification-Token";

export interface TaskPushNotificationDeps {
  stores: Pick<GatewayStores, "a2aPushConfigs" | "queue">;
  agents: () => AgentInstanceManager;
  egress: EgressPolicy;
  logger: Logger;
}

const SERIALIZERS: Record<A2aWireVersion, { serialize(event: StreamResponse, task: Task): { body: string; contentType: string } }> = {
  "1.0": new V1PushNotificationSerializer(),
  "0.3": new V03PushNotificationSerializer(),
};

/**
 * Tells A2A clients that a task stopped (completed, failed, cancelled, or asking for input): the
 * task, in the JSON of the protocol version its configuration was set in, POSTed to every URL set
 * for it, through the egress policy. Sent by the replica that recorded the run's outcome, right
 * after it: once (a replica dying in between sends none), as a run's webhook is.
 */
export function taskPushNotifications({ stores, agents, egress, logger }: TaskPushNotificationDeps): (run: CompletedRun) => void {
  const post = egressFetch(egress);

  const deliver = async (config: A2aPushConfig, task: Task) => {
    const { body, contentType } = SERIALIZERS[config.wireVersion].serialize({ payload: { $case: "task", value: task } }, task);
    const headers: Record<string, string> = { "content-type": contentType };
    if (config.token !== undefined) headers[TOKEN_HEADER] = config.token;
    if (config.authentication) headers.authorization = [config.authentication.scheme, config.authentication.credentials].filter(Boolean).join(" ");
    const response = await post(config.url, { method: "POST", headers, body, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
    await response.body?.cancel();
    if (!response.ok) logger.warn({ taskId: task.id, status: response.status }, "an A2A push notification's receiver answered with an error status");
  };

  const notify = async ({ scope }: CompletedRun, taskId: string) => {
    const configs = await stores.a2aPushConfigs.list(scope.tenantId, taskId);
    if (configs.length === 0) return;
    const runs = await taskRuns(stores.queue, { tenantId: scope.tenantId, assistantId: scope.assistantId }, taskId);
    if (!runs) return;
    const task = toTask(runs, await agents().getAgent(scope).stateSnapshot());
    await Promise.all(
      configs.map((config) => deliver(config, task).catch((error: unknown) => logger.warn({ err: error, taskId }, "an A2A push notification could not be sent"))),
    );
  };

  return (run) => {
    const taskId = taskIdOfRun(run.message.id);
    notify(run, taskId).catch((error: unknown) => logger.warn({ err: error, taskId }, "A2A push notifications not sent"));
  };
}
