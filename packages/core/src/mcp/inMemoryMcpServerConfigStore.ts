import type { CreateMcpServerConfigRequest, McpServerConfigEntry, McpServerConfigStore, Page, PageRequest, UpdateMcpServerConfigRequest } from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { keepStoredMcpSecrets, requireMcpServerKey, validateCreateMcpServerConfig, validateUpdateMcpServerConfig } from "./mcpConfigArguments";

const copy = (entry: McpServerConfigEntry): McpServerConfigEntry => structuredClone(entry);

/** {@link McpServerConfigStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryMcpServerConfigStore implements McpServerConfigStore {
  /** Per tenant, configurations in creation order. */
  private readonly tenants = new Map<string, Map<string, McpServerConfigEntry>>();
  private readonly clock = new CreationClock();

  async list(tenantId: string, page: PageRequest): Promise<Page<McpServerConfigEntry>> {
    return pageByCreation([...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])], page, (entry) => entry.key);
  }

  async get(tenantId: string, key: string): Promise<McpServerConfigEntry | null> {
    const entry = this.find(tenantId, key);
    return entry ? copy(entry) : null;
  }

  async create(tenantId: string, request: CreateMcpServerConfigRequest): Promise<McpServerConfigEntry> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateMcpServerConfig(request);
    const entries = this.tenants.get(tenant) ?? new Map<string, McpServerConfigEntry>();
    if (entries.has(valid.key)) throw new RecordExistsError("mcp-config", tenant, valid.key);
    const now = this.clock.now();
    const entry: McpServerConfigEntry = { tenantId: tenant, ...valid, createdAt: now, updatedAt: now };
    entries.set(valid.key, entry);
    this.tenants.set(tenant, entries);
    return copy(entry);
  }

  async update(tenantId: string, key: string, request: UpdateMcpServerConfigRequest): Promise<McpServerConfigEntry | null> {
    const entry = this.find(tenantId, key);
    const update = validateUpdateMcpServerConfig(request);
    if (!entry) return null;
    if (update.config) update.config = keepStoredMcpSecrets(update.config, entry.config);
    Object.assign(entry, update, { updatedAt: this.clock.now() });
    return copy(entry);
  }

  async delete(tenantId: string, key: string): Promise<boolean> {
    return this.tenants.get(requireTenantId(tenantId))?.delete(requireMcpServerKey(key)) ?? false;
  }

  async listConnected(): Promise<McpServerConfigEntry[]> {
    return [...this.tenants.values()].flatMap((entries) => [...entries.values()].filter((entry) => entry.status === "connected").map(copy));
  }

  private find(tenantId: string, key: string): McpServerConfigEntry | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireMcpServerKey(key));
  }
}
