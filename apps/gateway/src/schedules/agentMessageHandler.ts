import type { ScheduleHandler } from "@axiom-lattice/core";
import { z } from "zod";
import { idSchema } from "../http/ids";

/** The task type users schedule: a message enqueued on an assistant's thread. */
export const AGENT_MESSAGE_TASK_TYPE = "agent-message";

/** The payload of an `agent-message` schedule, as the API takes it and the store keeps it. */
export const agentMessagePayloadSchema = z.strictObject({
  assistant_id: idSchema,
  thread_id: idSchema,
  message: z.string().min(1).max(32_000),
});

export interface ScheduledAgentMessage {
  tenantId: string;
  assistantId: string;
  threadId: string;
  message: string;
  /**
   * Stable per fire (task id + scheduled time): use it as the queued message's id, so a fire run
   * again after a crash is refused as a duplicate instead of sending the message twice.
   */
  messageId: string;
  /** Aborted when the replica stops: stop waiting for the run (a peer takes the fire over). */
  signal?: AbortSignal;
}

/**
 * Puts a message on the assistant's thread queue and resolves when it is handled (the gateway's:
 * `createAgentMessageDelivery`, once its run ended well); a rejection fails the fire, which is then
 * retried per the schedule's policy and shows the error as its `lastError`.
 */
export type EnqueueAgentMessage = (message: ScheduledAgentMessage) => Promise<void>;

/** The `agent-message` handler: each fire delivers the schedule's message once. */
export function createAgentMessageHandler(enqueueMessage: EnqueueAgentMessage): ScheduleHandler {
  return async ({ task, scheduledAt, signal }) => {
    // Re-checked at fire time: a stored payload that no longer fits fails the fire instead of sending garbage.
    const { assistant_id: assistantId, thread_id: threadId, message } = agentMessagePayloadSchema.parse(task.payload);
    await enqueueMessage({ tenantId: task.tenantId, assistantId, threadId, message, messageId: `schedule.${task.taskId}.${scheduledAt}`, signal });
  };
}
