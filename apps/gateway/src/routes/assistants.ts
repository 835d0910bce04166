import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { gatewayContextOf } from "../context/gatewayContext";
import { HttpError } from "../http/errors";
import { tenantOf } from "../auth/authentication";
import { parseInput } from "../http/validation";
import { idParams, idSchema } from "./ids";

const modelSchema = z.strictObject({
  provider: z.string().min(1).max(64),
  model: z.string().min(1).max(256).optional(),
  baseUrl: z.url().max(2048).optional(),
  apiKey: z.string().min(1).max(4096).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

const createSchema = z.strictObject({
  id: idSchema.optional(),
  name: z.string().trim().min(1).max(200),
  graph: z.literal("react").optional(),
  model: modelSchema.default({ provider: "scripted" }),
  systemPrompt: z.string().max(100_000).optional(),
  tools: z.array(z.string().min(1).max(128)).max(100).optional(),
});

const updateSchema = createSchema.omit({ id: true }).partial();

/** Assistants CRUD, per tenant. API keys are never echoed back. */
export const assistantRoutes: FastifyPluginAsync = async (app) => {
  const { assistants } = gatewayContextOf(app).stores;
  const redact = <A extends { model: { apiKey?: string } }>(assistant: A): A =>
    assistant.model.apiKey ? { ...assistant, model: { ...assistant.model, apiKey: "***" } } : assistant;
  const notFound = (id: string) => new HttpError("NOT_FOUND", `Assistant ${id} not found`);

  app.post("/api/assistants", async (request, reply) => {
    const tenantId = tenantOf(request);
    const body = parseInput(createSchema, request.body);
    const assistant = await assistants.createAssistant(tenantId, body);
    return reply.status(201).send(redact(assistant));
  });

  app.get("/api/assistants", async (request) => {
    const list = await assistants.listAssistants(tenantOf(request));
    return { assistants: list.map(redact) };
  });

  app.get("/api/assistants/:id", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const assistant = await assistants.getAssistant(tenantOf(request), id);
    if (!assistant) throw notFound(id);
    return redact(assistant);
  });

  app.patch("/api/assistants/:id", async (request) => {
    const { id } = parseInput(idParams, request.params, "path");
    const body = parseInput(updateSchema, request.body);
    const assistant = await assistants.updateAssistant(tenantOf(request), id, body);
    if (!assistant) throw notFound(id);
    return redact(assistant);
  });

  app.delete("/api/assistants/:id", async (request, reply) => {
    const { id } = parseInput(idParams, request.params, "path");
    if (!(await assistants.deleteAssistant(tenantOf(request), id))) throw notFound(id);
    return reply.status(204).send();
  });
};
