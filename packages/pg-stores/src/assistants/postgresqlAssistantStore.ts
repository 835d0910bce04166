import {
  RecordExistsError,
  SecretKeyring,
  requireTenantId,
  requireText,
  validateAssistantVersion,
  validateAssistantVersionQuery,
  validateCreateAssistant,
  validateUpdateAssistant,
} from "@axiom-lattice/core";
import type {
  Assistant,
  AssistantModelConfig,
  AssistantStore,
  AssistantVersion,
  AssistantVersionQuery,
  CreateAssistantRequest,
  Page,
  PageRequest,
  UpdateAssistantRequest,
} from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import {
  DELETE_ASSISTANT,
  GET_ASSISTANT,
  INSERT_ASSISTANT,
  LIST_ASSISTANTS,
  LIST_ASSISTANT_VERSIONS,
  SET_CURRENT_ASSISTANT_VERSION,
  UPDATE_ASSISTANT,
} from "./assistantSql";

/** The fields an assistant and each of its versions have. */
interface VersionFieldsRow {
  tenant_id: string;
  name: string;
  graph: string;
  model: AssistantModelConfig;
  system_prompt: string | null;
  tools: string[];
  description: string | null;
  metadata: Record<string, unknown>;
  version: number;
  graph_config: Record<string, unknown>;
  graph_context: Record<string, unknown>;
  created_at: Date;
}

interface AssistantRow extends VersionFieldsRow {
  id: string;
  updated_at: Date;
}

/** Fields of NULL: the assistant exists but no version matched. */
interface AssistantVersionRow extends VersionFieldsRow {
  assistant_id: string;
}

export interface PostgreSQLAssistantStoreOptions extends PgStoreOptions {
  /** Seals `model.apiKey` before it is written and opens it when read; default: the development key. */
  keyring?: SecretKeyring;
}

const jsonOrNull = (value: Record<string, unknown> | undefined) => (value === undefined ? null : JSON.stringify(value));

/**
 * {@link AssistantStore} on `lattice_assistants`; every statement is scoped to one tenant. A
 * `model.apiKey` is stored sealed; a legacy plain-text one reads as it is until it is resealed.
 */
export class PostgreSQLAssistantStore extends PgStore implements AssistantStore {
  private readonly keyring: SecretKeyring;

  constructor(options: PostgreSQLAssistantStoreOptions) {
    super(options);
    this.keyring = options.keyring ?? SecretKeyring.development();
  }

  async createAssistant(tenantId: string, request: CreateAssistantRequest): Promise<Assistant> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateAssistant(request);
    const [row] = await this.rows(INSERT_ASSISTANT, [
      tenant,
      valid.id,
      valid.name,
      valid.graph,
      JSON.stringify(this.sealed(valid.model)),
      valid.systemPrompt ?? null,
      valid.tools,
      valid.description ?? null,
      JSON.stringify(valid.metadata),
      JSON.stringify(valid.graphConfig),
      JSON.stringify(valid.graphContext),
    ]);
    if (!row) throw new RecordExistsError("assistant", tenant, valid.id);
    return this.toAssistant(row);
  }

  async getAssistant(tenantId: string, assistantId: string): Promise<Assistant | null> {
    const [row] = await this.rows(GET_ASSISTANT, [requireTenantId(tenantId), requireText(assistantId, "Assistant id")]);
    return row ? this.toAssistant(row) : null;
  }

  async listAssistants(tenantId: string, page: PageRequest): Promise<Page<Assistant>> {
    const tenant = requireTenantId(tenantId);
    const read = async (after: (string | null)[], fetch: number) => {
      await this.initialize();
      return (await this.pool.query<AssistantRow & { created_us: string }>(LIST_ASSISTANTS, [tenant, ...after, fetch])).rows;
    };
    return readCreationPage(page, read, (row) => row.id, (row) => this.toAssistant(row));
  }

  async updateAssistant(tenantId: string, assistantId: string, request: UpdateAssistantRequest): Promise<Assistant | null> {
    const key = [requireTenantId(tenantId), requireText(assistantId, "Assistant id")];
    const update = validateUpdateAssistant(request);
    const [row] = await this.rows(UPDATE_ASSISTANT, [
      ...key,
      update.name ?? null,
      update.graph ?? null,
      update.model === undefined ? null : JSON.stringify(this.sealed(update.model)),
      update.systemPrompt ?? null,
      update.tools ?? null,
      update.description ?? null,
      jsonOrNull(update.metadata),
      jsonOrNull(update.graphConfig),
      jsonOrNull(update.graphContext),
    ]);
    return row ? this.toAssistant(row) : null;
  }

  async listAssistantVersions(tenantId: string, assistantId: string, query: AssistantVersionQuery): Promise<AssistantVersion[] | null> {
    const key = [requireTenantId(tenantId), requireText(assistantId, "Assistant id")];
    const { metadata, limit, offset } = validateAssistantVersionQuery(query);
    await this.initialize();
    const { rows } = await this.pool.query<AssistantVersionRow>(LIST_ASSISTANT_VERSIONS, [...key, jsonOrNull(metadata), limit, offset]);
    if (rows.length === 0) return null;
    return rows.filter((row) => row.version !== null).map((row) => ({ ...this.versionFields(row), assistantId: row.assistant_id }));
  }

  async setCurrentAssistantVersion(tenantId: string, assistantId: string, version: number): Promise<Assistant | null> {
    const [row] = await this.rows(SET_CURRENT_ASSISTANT_VERSION, [requireTenantId(tenantId), requireText(assistantId, "Assistant id"), validateAssistantVersion(version)]);
    return row ? this.toAssistant(row) : null;
  }

  async deleteAssistant(tenantId: string, assistantId: string): Promise<boolean> {
    const params = [requireTenantId(tenantId), requireText(assistantId, "Assistant id")];
    await this.initialize();
    return (await this.pool.query(DELETE_ASSISTANT, params)).rowCount === 1;
  }

  private sealed(model: AssistantModelConfig): AssistantModelConfig {
    return model.apiKey === undefined ? model : { ...model, apiKey: this.keyring.seal(model.apiKey) };
  }

  private toAssistant(row: AssistantRow): Assistant {
    return { ...this.versionFields(row), id: row.id, updatedAt: row.updated_at };
  }

  /** The fields an assistant and its versions share, the API key opened. */
  private versionFields(row: VersionFieldsRow): Omit<Assistant, "id" | "updatedAt"> {
    const { model } = row;
    return {
      tenantId: row.tenant_id,
      name: row.name,
      graph: row.graph,
      model: model.apiKey !== undefined && SecretKeyring.isSealed(model.apiKey) ? { ...model, apiKey: this.keyring.open(model.apiKey) } : model,
      ...(row.system_prompt === null ? {} : { systemPrompt: row.system_prompt }),
      tools: row.tools,
      ...(row.description === null ? {} : { description: row.description }),
      metadata: row.metadata,
      version: row.version,
      graphConfig: row.graph_config,
      graphContext: row.graph_context,
      createdAt: row.created_at,
    };
  }

  private async rows(sql: string, params: unknown[]): Promise<AssistantRow[]> {
    await this.initialize();
    return (await this.pool.query<AssistantRow>(sql, params)).rows;
  }
}
