import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { gatewayContextOf } from "../context/gatewayContext";
import { INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { idParams } from "./ids";

const taskView = z.object({
  id: z.string(),
  tenantId: z.string(),
  ownerType: z.enum(["user", "agent"]),
  ownerId: z.string(),
  title: z.string(),
  description: z.string().optional(),
  status: z.enum(["pending", "in_progress", "review", "failed", "interrupted", "completed", "cancelled"]),
  priority: z.number(),
  dueDate: z.date().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  parentId: z.string().optional(),
  sourceId: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  requireReview: z.boolean().optional(),
  dependencies: z.array(z.string()).optional(),
  result: z.unknown().optional(),
  failureReason: z.string().optional(),
  workspaceId: z.string().optional(),
  projectId: z.string().optional(),
  fencingToken: z.string().optional(),
  createdAt: z.date(),
  updatedAt: z.date(),
});

const tags = ["tasks"];

/** Running tasks: dispatching a project task to its machine, and cancelling any task. */
export const taskControlRoutes: FastifyPluginAsyncZod = async (app) => {
  const context = gatewayContextOf(app);

  app.post(
    "/api/tasks/:id/dispatch",
    {
      schema: {
        tags,
        summary: "Ask for a project task to run: its assistant starts it on the task's own thread, on whichever replica observes it first",
        params: idParams,
        response: { 200: taskView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "TASK_NOT_DISPATCHABLE", "INVALID_TASK_STATE", "LEASE_LOST") },
      },
    },
    async (request) => context.projectTasks.dispatch(tenantOf(request), request.params.id),
  );

  app.post(
    "/api/tasks/:id/cancel",
    {
      schema: {
        tags,
        summary: "Cancel a task that has not ended: its queued run is dropped, a delegating caller resumes with the cancellation",
        params: idParams,
        response: { 200: taskView, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_TASK_STATE", "LEASE_LOST") },
      },
    },
    async (request) => context.cancelTask(tenantOf(request), request.params.id),
  );
};
