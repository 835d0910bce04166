import type { AgentInstanceManager } from "@axiom-lattice/agent";
import type { AssistantStore, ThreadStore } from "@axiom-lattice/protocols";
import type { EnqueueAgentMessage } from "./agentMessageHandler";

/** What a scheduled message is delivered through. */
export interface AgentMessageDeliveryDependencies {
  agents: AgentInstanceManager;
  assistants: AssistantStore;
  threads: ThreadStore;
}

/** A scheduled message could not be delivered or its run did not end well: the fire failed. */
export class ScheduledMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScheduledMessageError";
  }
}

/** `work`, or a rejection with the signal's reason once it aborts (the work is left to finish unseen). */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Delivers a fire's message and settles with its run: refuses a missing assistant or thread (the
 * run would fail unseen), enqueues the message under the fire's id, and resolves once its run ended
 * (`success`, or `interrupted`: waiting for a person), rejecting when it failed or was aborted. A fire
 * run again after its replica died finds its message already queued and follows that run instead.
 */
export function createAgentMessageDelivery({ agents, assistants, threads }: AgentMessageDeliveryDependencies): EnqueueAgentMessage {
  return async ({ tenantId, assistantId, threadId, message, messageId, signal }) => {
    if (!(await assistants.getAssistant(tenantId, assistantId))) {
      throw new ScheduledMessageError(`Assistant ${assistantId} not found`);
    }
    const thread = await threads.getThread(tenantId, threadId);
    if (!thread || thread.assistantId !== assistantId) {
      throw new ScheduledMessageError(`Thread ${threadId} not found for assistant ${assistantId}`);
    }
    const agent = agents.getAgent({ tenantId, assistantId, threadId });
    try {
      await agent.addMessage({ message }, { mode: "queue", messageId });
    } catch (error) {
      // Enqueued by an earlier attempt of this very fire: follow that run rather than send twice.
      if ((error as { code?: unknown } | null)?.code !== "DUPLICATE_MESSAGE") throw error;
    }
    const run = await untilAborted(agent.waitForRun(messageId), signal);
    if (run.status !== "success" && run.status !== "interrupted") {
      throw new ScheduledMessageError(`Run of message ${messageId} ended ${run.status}${run.error ? `: ${run.error}` : ""}`);
    }
  };
}
