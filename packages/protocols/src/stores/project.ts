import type { Page, PageRequest } from "../page";

/** A tenant's project: the place its tasks and the assistants ("bots") working on them belong. */
export interface Project {
  id: string;
  tenantId: string;
  name: string;
  description?: string;
  metadata?: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateProjectRequest {
  /** Client-chosen id, unique within the tenant (another tenant may use it too); generated when absent. */
  id?: string;
  name: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

/** Fields left out keep their value. */
export type UpdateProjectRequest = Partial<Omit<CreateProjectRequest, "id">>;

/** An assistant's membership in a project. */
export interface ProjectBotMembership {
  tenantId: string;
  projectId: string;
  assistantId: string;
  createdAt: Date;
}

/** Projects and their bots, every call scoped to one tenant. */
export interface ProjectStore {
  /** Throws `ALREADY_EXISTS` when the tenant already has a project with this id. */
  createProject(tenantId: string, request: CreateProjectRequest): Promise<Project>;
  getProject(tenantId: string, projectId: string): Promise<Project | null>;
  /** A page of the tenant's projects, in creation order (ties by id). */
  listProjects(tenantId: string, page: PageRequest): Promise<Page<Project>>;
  updateProject(tenantId: string, projectId: string, request: UpdateProjectRequest): Promise<Project | null>;
  /** Deletes the project and its memberships. */
  deleteProject(tenantId: string, projectId: string): Promise<boolean>;
  /** Makes the assistant a member (idempotent: an existing membership is returned as it is); `null` when the project does not exist. */
  addBot(tenantId: string, projectId: string, assistantId: string): Promise<ProjectBotMembership | null>;
  /** False when the assistant was no member. */
  removeBot(tenantId: string, projectId: string, assistantId: string): Promise<boolean>;
  /** A page of the project's members, in the order they joined (ties by assistant id); empty for no project. */
  listBots(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectBotMembership>>;
  /** A page of the projects the assistant is a member of, in creation order (ties by id). */
  listBotProjects(tenantId: string, assistantId: string, page: PageRequest): Promise<Page<Project>>;
}
