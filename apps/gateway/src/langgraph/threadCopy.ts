import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ANY_ASSISTANT } from "@axiom-lattice/protocols";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { LanggraphServices } from "./langgraphServices";
import { idSchema } from "../http/ids";
import { requireThread, threadScope } from "../shared/lookups";
import { inputErrors } from "./errors";
import { threadView, toThreadView } from "./threadView";

const threadParams = z.object({ thread_id: idSchema });
const tags = ["langgraph"];

/**
 * `POST /threads/{id}/copy`: a new thread with the thread's metadata and its whole checkpoint history
 * (so its state, and every earlier state, read the same), as LangGraph Platform copies one. Its runs
 * and their events stay with the original.
 */
export const langgraphThreadCopyRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores" | "agents">> = async (app, gateway) => {

  app.post(
    "/threads/:thread_id/copy",
    {
      schema: {
        tags,
        summary: "Copy a thread: a new thread with its metadata, state and checkpoint history (LangGraph API)",
        params: threadParams,
        response: { 200: threadView, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const source = await requireThread(gateway, principalOf(request), request.params.thread_id);
      const id = randomUUID();
      // The platform names the copy in its metadata.
      const copy = await gateway.stores.threads.createThread(tenantId, { id, assistantId: ANY_ASSISTANT, metadata: { ...source.metadata, thread_id: id } });
      try {
        await gateway.agents.copyThreadState(threadScope(source), threadScope(copy));
      } catch (error) {
        // Nothing half-copied is left.
        await gateway.agents.deleteThread(threadScope(copy));
        throw error;
      }
      return toThreadView(gateway, copy);
    },
  );
};
