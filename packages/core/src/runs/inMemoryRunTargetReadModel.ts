import type { AssistantStore, RunTarget, RunTargetReadModel, ThreadStore } from "@axiom-lattice/protocols";
import { requireTenantId, requireText } from "../stores/storeArguments";

/** {@link RunTargetReadModel} over one process's assistant and thread stores: nothing to save in memory, so it asks each. */
export class InMemoryRunTargetReadModel implements RunTargetReadModel {
  constructor(private readonly stores: { assistants: AssistantStore; threads: ThreadStore }) {}

  async findRunTarget(tenantId: string, assistantId: string, threadId: string): Promise<RunTarget> {
    const tenant = requireTenantId(tenantId);
    const [assistant, thread] = await Promise.all([
      this.stores.assistants.getAssistant(tenant, requireText(assistantId, "Assistant id")),
      this.stores.threads.getThread(tenant, requireText(threadId, "Thread id")),
    ]);
    return { assistantFound: assistant !== null, thread };
  }
}
