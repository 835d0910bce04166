import type { ThreadRunScope } from "@axiom-lattice/core";
import type { Assistant, Thread } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";
import type { GatewayStores } from "../stores/gatewayStores";

// Another tenant's records answer exactly like missing ones: existence is not disclosed.

export async function requireAssistant({ stores }: { stores: Pick<GatewayStores, "assistants"> }, tenantId: string, id: string): Promise<Assistant> {
  const assistant = await stores.assistants.getAssistant(tenantId, id);
  if (!assistant) throw new HttpError("NOT_FOUND", `Assistant ${id} not found`);
  return assistant;
}

export async function requireThread({ stores }: { stores: Pick<GatewayStores, "threads"> }, tenantId: string, id: string, assistantId?: string): Promise<Thread> {
  const thread = await stores.threads.getThread(tenantId, id);
  if (!thread || (assistantId !== undefined && thread.assistantId !== assistantId)) {
    throw new HttpError("NOT_FOUND", `Thread ${id} not found${assistantId ? ` for assistant ${assistantId}` : ""}`);
  }
  return thread;
}

export function threadScope(thread: Thread): ThreadRunScope {
  return { tenantId: thread.tenantId, assistantId: thread.assistantId, threadId: thread.id };
}
