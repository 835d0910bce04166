import type {
  Assistant,
  AssistantStore,
  Page,
  PageRequest,
  AssistantVersion,
  AssistantVersionQuery,
  CreateAssistantRequest,
  UpdateAssistantRequest,
} from "@axiom-lattice/protocols";
import { RecordExistsError } from "../stores/recordExistsError";
import { jsonContains } from "../stores/jsonContainment";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { requireTenantId, requireText } from "../stores/storeArguments";
import { validateAssistantVersion, validateAssistantVersionQuery, validateCreateAssistant, validateUpdateAssistant } from "./assistantArguments";

const copy = <T>(value: T): T => structuredClone(value);

/** An assistant with every version it had, oldest first (so the last is the highest number). */
interface StoredAssistant {
  assistant: Assistant;
  versions: AssistantVersion[];
}

const versionOf = ({ id, updatedAt, ...fields }: Assistant): AssistantVersion => ({ ...fields, assistantId: id, createdAt: updatedAt });

/** {@link AssistantStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryAssistantStore implements AssistantStore {
  /** Per tenant, assistants in creation order. */
  private readonly tenants = new Map<string, Map<string, StoredAssistant>>();
  private readonly clock = new CreationClock();

  async createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateAssistant(request);
    const assistants = this.tenants.get(tenant) ?? new Map<string, StoredAssistant>();
    if (assistants.has(valid.id)) throw new RecordExistsError("assistant", tenant, valid.id);
    const now = this.clock.now();
    const assistant: Assistant = { ...valid, tenantId: tenant, version: 1, createdAt: now, updatedAt: now };
    assistants.set(valid.id, { assistant, versions: [versionOf(assistant)] });
    this.tenants.set(tenant, assistants);
    return copy(assistant);
  }

  async getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null> {
    const stored = this.find(tenantId, assistantId);
    return stored ? copy(stored.assistant) : null;
  }

  async listAssistants(tenantId: string, page: PageRequest): Promise<Page<Assistant>> {
    const stored = [...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])];
    return pageByCreation(stored.map(({ assistant }) => assistant), page, (assistant) => assistant.id);
  }

  async updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null> {
    const stored = this.find(tenantId, assistantId);
    const update = validateUpdateAssistant(request);
    if (!stored) return null;
    const { assistant, versions } = stored;
    const metadata = update.metadata && { ...assistant.metadata, ...update.metadata };
    // One above the highest number given, not the current one: after an older version was made current, a new one still gets a new number.
    const version = versions[versions.length - 1]!.version + 1;
    Object.assign(assistant, update, { ...(metadata && { metadata }), version, updatedAt: this.clock.now() });
    versions.push(versionOf(copy(assistant)));
    return copy(assistant);
  }

  async deleteAssistant(tenantId: string, assistantId: string): Promise<boolean> {
    return this.tenants.get(requireTenantId(tenantId))?.delete(requireText(assistantId, "Assistant id")) ?? false;
  }

  async listAssistantVersions(tenantId: string, assistantId: string, query: AssistantVersionQuery): Promise<AssistantVersion[] | null> {
    const stored = this.find(tenantId, assistantId);
    const { metadata, limit, offset } = validateAssistantVersionQuery(query);
    if (!stored) return null;
    return stored.versions
      .filter((version) => metadata === undefined || jsonContains(version.metadata, metadata))
      .reverse()
      .slice(offset, offset + limit)
      .map(copy);
  }

  async setCurrentAssistantVersion(tenantId: string, assistantId: string, version: number): Promise<Assistant | null> {
    const stored = this.find(tenantId, assistantId);
    const wanted = validateAssistantVersion(version);
    const chosen = stored?.versions.find((candidate) => candidate.version === wanted);
    if (!stored || !chosen) return null;
    const { assistantId: id, createdAt: _made, ...fields } = copy(chosen);
    stored.assistant = { ...fields, id, createdAt: stored.assistant.createdAt, updatedAt: this.clock.now() };
    return copy(stored.assistant);
  }

  private find(tenantId: string, assistantId: string): StoredAssistant | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireText(assistantId, "Assistant id"));
  }
}
