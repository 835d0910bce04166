import { RecordExistsError, requireAssistantId, requireProjectId, requireTenantId, validateCreateProject, validateUpdateProject } from "@axiom-lattice/core";
import type { CreateProjectRequest, Page, PageRequest, Project, ProjectBotMembership, ProjectStore, UpdateProjectRequest } from "@axiom-lattice/protocols";
import type { QueryResultRow } from "pg";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { ADD_BOT, DELETE_PROJECT, GET_PROJECT, INSERT_PROJECT, LIST_BOT_PROJECTS, LIST_BOTS, LIST_PROJECTS, REMOVE_BOT, UPDATE_PROJECT } from "./projectSql";

interface ProjectRow {
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

interface BotRow {
  tenant_id: string;
  project_id: string;
  assistant_id: string;
  created_at: Date;
}

/** A row of a list: its creation-order key's epoch microseconds (bigint: text). */
type Keyed<R> = R & { created_us: string };

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  ...(row.description === null ? {} : { description: row.description }),
  ...(row.metadata === null ? {} : { metadata: row.metadata }),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toMembership = (row: BotRow): ProjectBotMembership => ({
  tenantId: row.tenant_id,
  projectId: row.project_id,
  assistantId: row.assistant_id,
  createdAt: row.created_at,
});

const jsonOrNull = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/** {@link ProjectStore} on `lattice_projects` and `lattice_project_bots`; every statement is scoped to one tenant. */
export class PostgreSQLProjectStore extends PgStore implements ProjectStore {
  async createProject(tenantId: string, request: CreateProjectRequest): Promise<Project> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateProject(request);
    const [row] = await this.rows<ProjectRow>(INSERT_PROJECT, [tenant, valid.id, valid.name, valid.description ?? null, jsonOrNull(valid.metadata)]);
    if (!row) throw new RecordExistsError("project", tenant, valid.id);
    return toProject(row);
  }

  async getProject(tenantId: string, projectId: string): Promise<Project | null> {
    const [row] = await this.rows<ProjectRow>(GET_PROJECT, this.projectKey(tenantId, projectId));
    return row ? toProject(row) : null;
  }

  async listProjects(tenantId: string, page: PageRequest): Promise<Page<Project>> {
    const tenant = requireTenantId(tenantId);
    return readCreationPage<Keyed<ProjectRow>, Project>(page, (after, fetch) => this.rows<Keyed<ProjectRow>>(LIST_PROJECTS, [tenant, ...after, fetch]), (row) => row.id, toProject);
  }

  async updateProject(tenantId: string, projectId: string, request: UpdateProjectRequest): Promise<Project | null> {
    const key = this.projectKey(tenantId, projectId);
    const update = validateUpdateProject(request);
    const [row] = await this.rows<ProjectRow>(UPDATE_PROJECT, [...key, update.name ?? null, update.description ?? null, jsonOrNull(update.metadata)]);
    return row ? toProject(row) : null;
  }

  async deleteProject(tenantId: string, projectId: string): Promise<boolean> {
    return (await this.count(DELETE_PROJECT, this.projectKey(tenantId, projectId))) === 1;
  }

  async addBot(tenantId: string, projectId: string, assistantId: string): Promise<ProjectBotMembership | null> {
    const [row] = await this.rows<BotRow>(ADD_BOT, this.botKey(tenantId, projectId, assistantId));
    return row ? toMembership(row) : null;
  }

  async removeBot(tenantId: string, projectId: string, assistantId: string): Promise<boolean> {
    return (await this.count(REMOVE_BOT, this.botKey(tenantId, projectId, assistantId))) === 1;
  }

  async listBots(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectBotMembership>> {
    const key = this.projectKey(tenantId, projectId);
    return readCreationPage<Keyed<BotRow>, ProjectBotMembership>(page, (after, fetch) => this.rows<Keyed<BotRow>>(LIST_BOTS, [...key, ...after, fetch]), (row) => row.assistant_id, toMembership);
  }

  async listBotProjects(tenantId: string, assistantId: string, page: PageRequest): Promise<Page<Project>> {
    const key = [requireTenantId(tenantId), requireAssistantId(assistantId)];
    return readCreationPage<Keyed<ProjectRow>, Project>(page, (after, fetch) => this.rows<Keyed<ProjectRow>>(LIST_BOT_PROJECTS, [...key, ...after, fetch]), (row) => row.id, toProject);
  }

  private projectKey(tenantId: string, projectId: string): string[] {
    return [requireTenantId(tenantId), requireProjectId(projectId)];
  }

  private botKey(tenantId: string, projectId: string, assistantId: string): string[] {
    return [...this.projectKey(tenantId, projectId), requireAssistantId(assistantId)];
  }

  private async rows<R extends QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    await this.initialize();
    return (await this.pool.query<R>(sql, params)).rows;
  }

  private async count(sql: string, params: unknown[]): Promise<number> {
    await this.initialize();
    return (await this.pool.query(sql, params)).rowCount ?? 0;
  }
}
