import type { FastifyPluginAsync } from "fastify";
import { langgraphAssistantRoutes } from "./assistants";
import { langgraphCronRoutes } from "./crons";
import { installLanggraphErrors } from "./errors";
import { langgraphServerInfoRoutes } from "./serverInfo";
import { langgraphDevTruncateRoute } from "./devTruncate";
import { isProtectedRoute, tenantOf } from "../auth/authentication";
import { langgraphRunRoutes } from "./runs";
import { langgraphStatelessRunRoutes } from "./statelessRuns";
import { langgraphStoreRoutes } from "./store";
import { langgraphThreadCopyRoutes } from "./threadCopy";
import { langgraphThreadStreamRoutes } from "./threadStream";
import { langgraphThreadRoutes } from "./threads";
import { langgraphUiRoutes } from "./ui";
import type { LanggraphServices } from "./langgraphServices";

/**
 * The LangGraph Platform HTTP API at the root (`/assistants`, `/threads`, `/runs`), beside `/api`: the
 * same stores, queue, leases, checkpoints and replicas, answered in LangGraph's terms so that its SDKs
 * and tools work unmodified. Its errors answer `{ detail, code }` (this plugin's own error handler).
 */
export const langgraphApi: FastifyPluginAsync<LanggraphServices> = async (app, services) => {
  installLanggraphErrors(app);
  await app.register(langgraphServerInfoRoutes, services);
  // Development only: the one user's data lives in this process alone (see langgraphDevTruncateRoute).
  if (services.stores.kind === "memory" && !services.config.auth.required) await app.register(langgraphDevTruncateRoute, services);
  // Each graph's default assistant exists in a tenant before its first LangGraph request is answered.
  app.addHook("preHandler", async (request) => {
    if (isProtectedRoute(request.url)) await services.graphs.systemAssistants.ensure(tenantOf(request));
  });
  await app.register(langgraphAssistantRoutes, services);
  await app.register(langgraphThreadRoutes, services);
  await app.register(langgraphRunRoutes, services);
  await app.register(langgraphStatelessRunRoutes, services);
  await app.register(langgraphStoreRoutes, services);
  await app.register(langgraphCronRoutes, services);
  await app.register(langgraphThreadCopyRoutes, services);
  await app.register(langgraphThreadStreamRoutes, services);
  if (services.graphs.ui) await app.register(langgraphUiRoutes, { ui: services.graphs.ui });
};
