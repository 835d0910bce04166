import type { Assistant, AssistantStore, CreateAssistantRequest, UpdateAssistantRequest } from "@axiom-lattice/protocols";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId, requireText } from "../stores/storeArguments";
import { validateCreateAssistant, validateUpdateAssistant } from "./assistantArguments";

const copy = (assistant: Assistant): Assistant => structuredClone(assistant);

/** {@link AssistantStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryAssistantStore implements AssistantStore {
  /** Per tenant, assistants in creation order. */
  private readonly tenants = new Map<string, Map<string, Assistant>>();

  async createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateAssistant(request);
    const assistants = this.tenants.get(tenant) ?? new Map<string, Assistant>();
    if (assistants.has(valid.id)) throw new RecordExistsError("assistant", tenant, valid.id);
    const now = new Date();
    const assistant: Assistant = { ...valid, tenantId: tenant, version: 1, createdAt: now, updatedAt: now };
    assistants.set(valid.id, assistant);
    this.tenants.set(tenant, assistants);
    return copy(assistant);
  }

  async getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null> {
    const assistant = this.find(tenantId, assistantId);
    return assistant ? copy(assistant) : null;
  }

  async listAssistants(tenantId: string): Promise<Assistant[]> {
    return [...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])].map(copy);
  }

  async updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null> {
    const assistant = this.find(tenantId, assistantId);
    const update = validateUpdateAssistant(request);
    if (!assistant) return null;
    const metadata = update.metadata && { ...assistant.metadata, ...update.metadata };
    Object.assign(assistant, update, { ...(metadata && { metadata }), version: assistant.version + 1, updatedAt: new Date() });
    return copy(assistant);
  }

  async deleteAssistant(tenantId: string, assistantId: string): Promise<boolean> {
    return this.tenants.get(requireTenantId(tenantId))?.delete(requireText(assistantId, "Assistant id")) ?? false;
  }

  private find(tenantId: string, assistantId: string): Assistant | undefined {
    return this.tenants.get(requireTenantId(tenantId))?.get(requireText(assistantId, "Assistant id"));
  }
}
