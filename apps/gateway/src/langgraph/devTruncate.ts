import { readAllPages } from "@axiom-lattice/core";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DEFAULT_TENANT } from "../defaults";
import { tenantHeader } from "../http/tenant";
import { threadScope } from "../shared/lookups";
import type { LanggraphServices } from "./langgraphServices";

const flags = z.strictObject({
  runs: z.boolean().optional(),
  threads: z.boolean().optional(),
  assistants: z.boolean().optional(),
  store: z.boolean().optional(),
  checkpointer: z.boolean().optional(),
  // The name the LangGraph server's own test utilities send (its server ignores it): as `checkpointer`.
  checkpoint: z.boolean().optional(),
});

/** Items deleted per search: the store answers at most this many at once. */
const ITEM_PAGE = 1000;

/**
 * `POST /internal/truncate`, as `langgraph dev` serves it for test suites: empties one tenant's
 * threads (with their runs and checkpoints), assistants and store. Registered only on a development
 * gateway (in-memory stores, authentication off), where the one user's data lives in this process
 * alone; the tenant is `x-tenant-id`'s, else the default one. Each graph's default assistant is made
 * again on the tenant's next request.
 */
export const langgraphDevTruncateRoute: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores" | "agents" | "graphs">> = async (app, { stores, agents, graphs }) => {
  app.post("/internal/truncate", { schema: { hide: true, body: flags } }, async (request) => {
    const tenantId = tenantHeader(request) ?? DEFAULT_TENANT;
    const { runs, threads, checkpointer, checkpoint, assistants, store } = request.body;
    if (runs || threads || checkpointer || checkpoint) {
      for (const thread of await readAllPages((page) => stores.threads.listThreads(tenantId, page))) await agents.deleteThread(threadScope(thread));
    }
    if (assistants) {
      for (const assistant of await readAllPages((page) => stores.assistants.listAssistants(tenantId, page))) await stores.assistants.deleteAssistant(tenantId, assistant.id);
      graphs.systemAssistants.forget(tenantId);
    }
    if (store) {
      for (;;) {
        const items = await stores.items.search(tenantId, { namespacePrefix: [], limit: ITEM_PAGE });
        for (const item of items) await stores.items.delete(tenantId, item.namespace, item.key);
        if (items.length < ITEM_PAGE) break;
      }
    }
    return { ok: true };
  });
};
