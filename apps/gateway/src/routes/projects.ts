import type { Project, ProjectBotMembership } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idParams, idSchema, noContent } from "../http/ids";
import type { GatewayStores } from "../stores/gatewayStores";

const createSchema = z.strictObject({
  id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  name: rules.string.trim().min(1).max(200),
  description: rules.string.max(10_000).optional(),
  metadata: rules.jsonObject.optional().describe("Free-form JSON object, kept as given"),
});

const updateSchema = createSchema.omit({ id: true }).partial();

const projectView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "Project" });

const toProjectView = (project: Project): z.input<typeof projectView> => ({
  id: project.id,
  tenant_id: project.tenantId,
  name: project.name,
  description: project.description,
  metadata: project.metadata,
  created_at: project.createdAt,
  updated_at: project.updatedAt,
});

const membershipView = z
  .object({
    tenant_id: z.string(),
    project_id: z.string(),
    assistant_id: z.string(),
    created_at: z.date().describe("When the assistant joined"),
  })
  .meta({ id: "ProjectBot" });

const toMembershipView = (membership: ProjectBotMembership): z.input<typeof membershipView> => ({
  tenant_id: membership.tenantId,
  project_id: membership.projectId,
  assistant_id: membership.assistantId,
  created_at: membership.createdAt,
});

const botParams = z.object({ id: idSchema, assistantId: idSchema });

const tags = ["projects"];

/** Projects CRUD and their member assistants ("bots"), per tenant. */
export const projectRoutes: FastifyPluginAsyncZod<{ stores: Pick<GatewayStores, "projects" | "assistants"> }> = async (app, { stores }) => {
  const { projects, assistants } = stores;
  const projectNotFound = (id: string) => new HttpError("NOT_FOUND", `Project ${id} not found`);

  app.post(
    "/api/projects",
    {
      schema: {
        tags,
        summary: "Create a project",
        body: createSchema,
        response: { 201: projectView, ...apiErrors(...BODY_CODES, "ALREADY_EXISTS") },
      },
    },
    async (request, reply) => reply.status(201).send(toProjectView(await projects.createProject(tenantOf(request), request.body))),
  );

  app.get(
    "/api/projects",
    {
      schema: {
        tags,
        summary: "List the tenant's projects, in creation order, a page at a time",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("projects", projectView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("projects", await projects.listProjects(tenantOf(request), request.query), toProjectView),
  );

  app.get(
    "/api/projects/:id",
    { schema: { tags, summary: "Read a project", params: idParams, response: { 200: projectView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const project = await projects.getProject(tenantOf(request), request.params.id);
      if (!project) throw projectNotFound(request.params.id);
      return toProjectView(project);
    },
  );

  app.patch(
    "/api/projects/:id",
    {
      schema: {
        tags,
        summary: "Change a project (the fields given)",
        params: idParams,
        body: updateSchema,
        response: { 200: projectView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const project = await projects.updateProject(tenantOf(request), request.params.id, request.body);
      if (!project) throw projectNotFound(request.params.id);
      return toProjectView(project);
    },
  );

  app.delete(
    "/api/projects/:id",
    { schema: { tags, summary: "Delete a project and its memberships", params: idParams, response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request, reply) => {
      if (!(await projects.deleteProject(tenantOf(request), request.params.id))) throw projectNotFound(request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/projects/:id/bots",
    {
      schema: {
        tags,
        summary: "List a project's bots, in the order they joined, a page at a time",
        params: idParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("bots", membershipView), ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      // An empty list would not tell a project without bots from no project at all.
      if (!(await projects.getProject(tenant, request.params.id))) throw projectNotFound(request.params.id);
      return pageBody("bots", await projects.listBots(tenant, request.params.id, request.query), toMembershipView);
    },
  );

  app.put(
    "/api/projects/:id/bots/:assistantId",
    {
      schema: {
        tags,
        summary: "Make an assistant a bot of the project (idempotent)",
        params: botParams,
        response: { 200: membershipView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { id, assistantId } = request.params;
      if (!(await assistants.getAssistant(tenant, assistantId))) throw new HttpError("NOT_FOUND", `Assistant ${assistantId} not found`);
      const membership = await projects.addBot(tenant, id, assistantId);
      if (!membership) throw projectNotFound(id);
      return toMembershipView(membership);
    },
  );

  app.delete(
    "/api/projects/:id/bots/:assistantId",
    {
      schema: {
        tags,
        summary: "Remove a bot from the project",
        params: botParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const { id, assistantId } = request.params;
      if (!(await projects.removeBot(tenantOf(request), id, assistantId))) {
        throw new HttpError("NOT_FOUND", `Assistant ${assistantId} is no bot of project ${id}`);
      }
      return reply.status(204).send();
    },
  );
};
