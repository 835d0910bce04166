import { EgressRefusedError, checkEgressUrl } from "@axiom-lattice/core";
import type { A2aPushConfig, A2aWireVersion } from "@axiom-lattice/protocols";
import type { TaskPushNotificationConfig } from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import type { GatewayConfig } from "../config";
import type { GatewayStores } from "../stores/gatewayStores";
import { clientId } from "./userInput";

/** How many push-notification configurations one task takes. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

/** A stored configuration as A2A shows it. */
export const toPushConfig = (config: A2aPushConfig): TaskPushNotificationConfig => ({
  tenant: "",
  id: config.id,
  taskId: config.taskId,
  url: config.url,
  token: config.token ?? "",
  authentication: config.authentication && { scheme: config.authentication.scheme, credentials: config.authentication.credentials ?? "" },
});

/**
 * A tenant's push-notification configurations of its tasks, as A2A clients set them (in `version`,
 * the protocol version their notifications are sent in). The caller checks that the task exists.
 */
export function taskPushConfigs(
  { stores, config }: { stores: Pick<GatewayStores, "a2aPushConfigs">; config: Pick<GatewayConfig, "upstream"> },
  tenantId: string,
  version: A2aWireVersion,
) {
  return {
    /**
     * Sets where a task's stops are told, once its URL passed the egress policy (checked again on
     * every call), within {@link MAX_PUSH_CONFIGS_PER_TASK}. Its id is the client's, or the task's.
     */
    async set(taskId: string, requested: TaskPushNotificationConfig): Promise<A2aPushConfig> {
      const id = clientId("id", requested.id) ?? taskId;
      if (requested.url === "") throw new RequestMalformedError("url is required: where the notifications are sent");
      try {
        await checkEgressUrl(requested.url, config.upstream.egress);
      } catch (error) {
        if (error instanceof EgressRefusedError) throw new RequestMalformedError(`url: ${error.message}`);
        throw error;
      }
      const existing = await stores.a2aPushConfigs.list(tenantId, taskId);
      if (existing.length >= MAX_PUSH_CONFIGS_PER_TASK && !existing.some((each) => each.id === id)) {
        throw new RequestMalformedError(`Task ${taskId} has ${MAX_PUSH_CONFIGS_PER_TASK} push notification configurations, the most it takes`);
      }
      const { scheme = "", credentials = "" } = requested.authentication ?? {};
      return stores.a2aPushConfigs.put({
        tenantId,
        taskId,
        id,
        url: requested.url,
        wireVersion: version,
        ...(requested.token === "" ? {} : { token: requested.token }),
        ...(scheme === "" ? {} : { authentication: { scheme, ...(credentials === "" ? {} : { credentials }) } }),
      });
    },

    /** A configuration of the task; a missing one is "task not found", as A2A's SDK answers it. */
    async require(taskId: string, id: string): Promise<A2aPushConfig> {
      const found = await stores.a2aPushConfigs.get(tenantId, taskId, id === "" ? taskId : id);
      if (!found) throw new TaskNotFoundError(`Task ${taskId} has no push notification configuration ${id}`);
      return found;
    },

    list: (taskId: string) => stores.a2aPushConfigs.list(tenantId, taskId),

    remove: (pushConfig: A2aPushConfig) => stores.a2aPushConfigs.delete(tenantId, pushConfig.taskId, pushConfig.id),
  };
}
