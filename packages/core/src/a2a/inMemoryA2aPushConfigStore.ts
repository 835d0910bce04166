import type { A2aPushConfig, A2aPushConfigStore } from "@axiom-lattice/protocols";
import { requireTenantId, requireText } from "../stores/storeArguments";
import { validateA2aPushConfig } from "./a2aPushConfigArguments";

const copy = (config: A2aPushConfig): A2aPushConfig => ({ ...config, ...(config.authentication ? { authentication: { ...config.authentication } } : {}) });

/** {@link A2aPushConfigStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryA2aPushConfigStore implements A2aPushConfigStore {
  /** By tenant and task, then by id in the order they were first set. */
  private readonly tasks = new Map<string, Map<string, A2aPushConfig>>();

  private static key(tenantId: string, taskId: string): string {
    return JSON.stringify([requireTenantId(tenantId), requireText(taskId, "taskId")]);
  }

  async put(config: Omit<A2aPushConfig, "createdAt">): Promise<A2aPushConfig> {
    const valid = validateA2aPushConfig(config);
    const key = InMemoryA2aPushConfigStore.key(valid.tenantId, valid.taskId);
    const configs = this.tasks.get(key) ?? new Map<string, A2aPushConfig>();
    const stored: A2aPushConfig = { ...valid, createdAt: configs.get(valid.id)?.createdAt ?? new Date() };
    configs.set(valid.id, stored);
    this.tasks.set(key, configs);
    return copy(stored);
  }

  async get(tenantId: string, taskId: string, id: string): Promise<A2aPushConfig | null> {
    const config = this.tasks.get(InMemoryA2aPushConfigStore.key(tenantId, taskId))?.get(requireText(id, "push config id"));
    return config ? copy(config) : null;
  }

  async list(tenantId: string, taskId: string): Promise<A2aPushConfig[]> {
    return [...(this.tasks.get(InMemoryA2aPushConfigStore.key(tenantId, taskId))?.values() ?? [])].map(copy);
  }

  async delete(tenantId: string, taskId: string, id: string): Promise<boolean> {
    return this.tasks.get(InMemoryA2aPushConfigStore.key(tenantId, taskId))?.delete(requireText(id, "push config id")) ?? false;
  }
}
