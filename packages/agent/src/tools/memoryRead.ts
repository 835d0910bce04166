import { tool } from "@langchain/core/tools";
import { getStore } from "@langchain/langgraph";
import { z } from "zod";

export const MEMORY_READ_TOOL = "memory_read";

/**
 * `memory_read`: one item of the tenant's long-term memory (the LangGraph store), by namespace and key,
 * as JSON. Read-only: what an application wrote through `/store/items` (a user's profile, say) is
 * there for the model to read; writing stays the application's.
 */
export const memoryReadTool = tool(
  async ({ namespace, key }, config) => {
    const store = getStore(config);
    if (!store) return "No long-term memory is available to this run.";
    const item = await store.get(namespace, key);
    return item ? JSON.stringify(item.value) : `No item "${key}" in namespace ${JSON.stringify(namespace)}.`;
  },
  {
    name: MEMORY_READ_TOOL,
    description: "Reads one item of long-term memory by its namespace (a list of labels) and key; returns its value as JSON.",
    schema: z.object({
      namespace: z.array(z.string().min(1)).min(1).describe('Labels of the namespace, such as ["users", "u1"]'),
      key: z.string().min(1),
    }),
  },
);
