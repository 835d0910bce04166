import { RecordExistsError, requireTenantId, requireText, validateCreateAssistant, validateUpdateAssistant } from "@axiom-lattice/core";
import type { Assistant, AssistantModelConfig, AssistantStore, CreateAssistantRequest, UpdateAssistantRequest } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { DELETE_ASSISTANT, GET_ASSISTANT, INSERT_ASSISTANT, LIST_ASSISTANTS, UPDATE_ASSISTANT } from "./assistantSql";

interface AssistantRow {
  tenant_id: string;
  id: string;
  name: string;
  graph: "react";
  model: AssistantModelConfig;
  system_prompt: string | null;
  tools: string[];
  created_at: Date;
  updated_at: Date;
}

const toAssistant = (row: AssistantRow): Assistant => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  graph: row.graph,
  model: row.model,
  ...(row.system_prompt === null ? {} : { systemPrompt: row.system_prompt }),
  tools: row.tools,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** {@link AssistantStore} on `lattice_assistants`; every statement is scoped to one tenant. */
export class PostgreSQLAssistantStore extends PgStore implements AssistantStore {
  async createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateAssistant(request);
    const [row] = await this.rows(INSERT_ASSISTANT, [
      tenant,
      valid.id,
      valid.name,
      valid.graph,
      JSON.stringify(valid.model),
      valid.systemPrompt ?? null,
      valid.tools,
    ]);
    if (!row) throw new RecordExistsError("assistant", tenant, valid.id);
    return toAssistant(row);
  }

  async getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null> {
    const [row] = await this.rows(GET_ASSISTANT, [requireTenantId(tenantId), requireText(assistantId, "Assistant id")]);
    return row ? toAssistant(row) : null;
  }

  async listAssistants(tenantId: string): Promise<Assistant[]> {
    return (await this.rows(LIST_ASSISTANTS, [requireTenantId(tenantId)])).map(toAssistant);
  }

  async updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null> {
    const key = [requireTenantId(tenantId), requireText(assistantId, "Assistant id")];
    const update = validateUpdateAssistant(request);
    const [row] = await this.rows(UPDATE_ASSISTANT, [
      ...key,
      update.name ?? null,
      update.graph ?? null,
      update.model === undefined ? null : JSON.stringify(update.model),
      update.systemPrompt ?? null,
      update.tools ?? null,
    ]);
    return row ? toAssistant(row) : null;
  }

  async deleteAssistant(tenantId: string, assistantId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireText(assistantId, "Assistant id")];
    await this.initialize();
    return (await this.pool.query(DELETE_ASSISTANT, params)).rowCount === 1;
  }

  private async rows(sql: string, params: unknown[]): Promise<AssistantRow[]> {
    await this.initialize();
    return (await this.pool.query<AssistantRow>(sql, params)).rows;
  }
}
