import type { FastifyPluginAsync } from "fastify";
import { langgraphAssistantRoutes } from "./assistants";
import { installLanggraphErrors } from "./errors";
import { langgraphRunRoutes } from "./runs";
import { langgraphStatelessRunRoutes } from "./statelessRuns";
import { langgraphStoreRoutes } from "./store";
import { langgraphThreadRoutes } from "./threads";

/**
 * The LangGraph Platform HTTP API at the root (`/assistants`, `/threads`, `/runs`), beside `/api`: the
 * same stores, queue, leases, checkpoints and replicas, answered in LangGraph's terms so that its SDKs
 * and tools work unmodified. Its errors answer `{ detail, code }` (this plugin's own error handler).
 */
export const langgraphApi: FastifyPluginAsync = async (app) => {
  installLanggraphErrors(app);
  await app.register(langgraphAssistantRoutes);
  await app.register(langgraphThreadRoutes);
  await app.register(langgraphRunRoutes);
  await app.register(langgraphStatelessRunRoutes);
  await app.register(langgraphStoreRoutes);
};
