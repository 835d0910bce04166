/** The A2A protocol version a push configuration was set in: its notifications are sent in that version's JSON. */
export type A2aWireVersion = "1.0" | "0.3";

/**
 * Where the gateway tells an A2A client that one of its tasks stopped (completed, failed, cancelled,
 * or asking for input), as the client set it with the task's push-notification methods.
 */
export interface A2aPushConfig {
  tenantId: string;
  /** The A2A task: the id of its first run. */
  taskId: string;
  /** Unique within the task. */
  id: string;
  /** Where notifications are POSTed; held to the egress policy when set and when called. */
  url: string;
  /** Sent back with every notification (`X-A2A-Notification-Token`), for the receiver to check. */
  token?: string;
  /** How the gateway authenticates to the receiver: `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials?: string };
  wireVersion: A2aWireVersion;
  createdAt: Date;
}

/** The tenants' A2A push-notification configurations, by task. */
export interface A2aPushConfigStore {
  /** Sets a configuration of a task, replacing one of the same id (its creation time kept). */
  put(config: Omit<A2aPushConfig, "createdAt">): Promise<A2aPushConfig>;
  get(tenantId: string, taskId: string, id: string): Promise<A2aPushConfig | null>;
  /** A task's configurations, oldest first. */
  list(tenantId: string, taskId: string): Promise<A2aPushConfig[]>;
  /** `false` when there was none. */
  delete(tenantId: string, taskId: string, id: string): Promise<boolean>;
}
