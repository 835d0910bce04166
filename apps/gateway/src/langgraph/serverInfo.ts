import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { GATEWAY_VERSION } from "../version";
import type { LanggraphServices } from "./langgraphServices";

const tags = ["langgraph"];

const infoView = z.object({
  version: z.string(),
  context: z.literal("js"),
  graphs: z.array(z.string()).describe("The graphs served: react, then those of the operator's langgraph.json"),
  node_version: z.string().nullable().describe("As the operator's langgraph.json gives it"),
  dependencies: z.array(z.string()).describe("As the operator's langgraph.json gives them"),
  flags: z.object({ assistants: z.boolean(), crons: z.boolean(), langsmith: z.boolean(), langsmith_tracing_replicas: z.boolean() }),
});

/**
 * What LangGraph Studio and the platform's clients ask first: `GET /ok` (the server is up) and
 * `GET /info` (what it serves). Tracing to LangSmith is not done here: its flag is false.
 */
export const langgraphServerInfoRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "graphs">> = async (app, { graphs }) => {
  app.get("/ok", { schema: { tags, summary: "Whether the server is up (LangGraph API)", response: { 200: z.object({ ok: z.literal(true) }) } } }, async () => ({ ok: true as const }));

  app.get("/info", { schema: { tags, summary: "What this server serves (LangGraph API)", response: { 200: infoView } } }, async () => ({
    version: GATEWAY_VERSION,
    context: "js" as const,
    graphs: [...graphs.ids],
    node_version: graphs.deployment?.nodeVersion ?? null,
    dependencies: graphs.deployment?.dependencies ?? [],
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: false },
  }));
};
