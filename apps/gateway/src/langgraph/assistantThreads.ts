import type { Thread } from "@axiom-lattice/protocols";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { threadScope } from "../shared/lookups";

const PAGE = 1000;

/**
 * `DELETE /assistants/{id}?delete_threads=true`: deletes the tenant's threads labelled with the
 * assistant (`metadata.assistant_id`, which its runs write, as LangGraph Platform's delete_threads
 * reads it), each as `DELETE /threads/{id}` deletes one. While any of them has a run in progress,
 * none is deleted: `409 THREAD_BUSY`, as `DELETE /threads/{id}` answers.
 */
export async function deleteAssistantThreads({ stores, agents }: Pick<LanggraphServices, "stores" | "agents">, tenantId: string, assistantId: string): Promise<void> {
  const labelled: Thread[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.langGraph.searchThreads(tenantId, { metadata: { assistant_id: assistantId }, limit: PAGE, offset });
    labelled.push(...page);
    if (page.length < PAGE) break;
  }
  for (const thread of labelled) {
    const running = await stores.queue.getProcessingMessages(threadScope(thread));
    if (running.length > 0) throw new HttpError("THREAD_BUSY", `Thread ${thread.id} of assistant ${assistantId} has a run in progress; cancel it first (nothing was deleted)`);
  }
  for (const thread of labelled) await agents.deleteThread(threadScope(thread));
}
