import type { CreateProjectRequest, Page, PageRequest, Project, ProjectBotMembership, ProjectStore, UpdateProjectRequest } from "@axiom-lattice/protocols";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { requireAssistantId, requireProjectId, validateCreateProject, validateUpdateProject } from "./projectArguments";

interface StoredProject {
  project: Project;
  /** Members by assistant id. */
  bots: Map<string, ProjectBotMembership>;
}

const copy = <T>(value: T): T => structuredClone(value);

/** {@link ProjectStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryProjectStore implements ProjectStore {
  /** Per tenant, projects by id. */
  private readonly tenants = new Map<string, Map<string, StoredProject>>();
  private readonly clock = new CreationClock();

  async createProject(tenantId: string, request: CreateProjectRequest): Promise<Project> {
    const tenant = requireTenantId(tenantId);
    const valid = validateCreateProject(request);
    const projects = this.tenants.get(tenant) ?? new Map<string, StoredProject>();
    if (projects.has(valid.id)) throw new RecordExistsError("project", tenant, valid.id);
    const now = this.clock.now();
    const project: Project = { ...valid, tenantId: tenant, createdAt: now, updatedAt: now };
    projects.set(valid.id, { project, bots: new Map() });
    this.tenants.set(tenant, projects);
    return copy(project);
  }

  async getProject(tenantId: string, projectId: string): Promise<Project | null> {
    const stored = this.find(tenantId, projectId);
    return stored ? copy(stored.project) : null;
  }

  async listProjects(tenantId: string, page: PageRequest): Promise<Page<Project>> {
    const projects = [...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])].map((stored) => stored.project);
    return pageByCreation(projects, page, (project) => project.id);
  }

  async updateProject(tenantId: string, projectId: string, request: UpdateProjectRequest): Promise<Project | null> {
    const stored = this.find(tenantId, projectId);
    const update = validateUpdateProject(request);
    if (!stored) return null;
    // updatedAt never goes back, even if the clock does.
    Object.assign(stored.project, update, { updatedAt: new Date(Math.max(Date.now(), stored.project.updatedAt.getTime())) });
    return copy(stored.project);
  }

  async deleteProject(tenantId: string, projectId: string): Promise<boolean> {
    const tenant = requireTenantId(tenantId);
    const project = requireProjectId(projectId);
    return this.tenants.get(tenant)?.delete(project) ?? false;
  }

  async addBot(tenantId: string, projectId: string, assistantId: string): Promise<ProjectBotMembership | null> {
    const stored = this.find(tenantId, projectId);
    const assistant = requireAssistantId(assistantId);
    if (!stored) return null;
    const existing = stored.bots.get(assistant);
    if (existing) return copy(existing);
    const membership: ProjectBotMembership = { tenantId: stored.project.tenantId, projectId: stored.project.id, assistantId: assistant, createdAt: this.clock.now() };
    stored.bots.set(assistant, membership);
    return copy(membership);
  }

  async removeBot(tenantId: string, projectId: string, assistantId: string): Promise<boolean> {
    const stored = this.find(tenantId, projectId);
    const assistant = requireAssistantId(assistantId);
    return stored?.bots.delete(assistant) ?? false;
  }

  async listBots(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectBotMembership>> {
    return pageByCreation([...(this.find(tenantId, projectId)?.bots.values() ?? [])], page, (membership) => membership.assistantId);
  }

  async listBotProjects(tenantId: string, assistantId: string, page: PageRequest): Promise<Page<Project>> {
    const tenant = requireTenantId(tenantId);
    const assistant = requireAssistantId(assistantId);
    const projects = [...(this.tenants.get(tenant)?.values() ?? [])].filter((stored) => stored.bots.has(assistant)).map((stored) => stored.project);
    return pageByCreation(projects, page, (project) => project.id);
  }

  private find(tenantId: string, projectId: string): StoredProject | undefined {
    const tenant = requireTenantId(tenantId);
    const project = requireProjectId(projectId);
    return this.tenants.get(tenant)?.get(project);
  }
}
