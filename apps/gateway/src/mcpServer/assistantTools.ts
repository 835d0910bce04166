import type { Assistant } from "@axiom-lattice/protocols";
import type { ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type Principal, mayUseAssistant } from "../auth/principal";
import { idSchema } from "../http/ids";
import type { GatewayStores } from "../stores/gatewayStores";
import { toolNameOf } from "./toolNames";

/** What a call of an assistant's tool takes: the message, and the thread to continue (a new one when absent). */
export const toolInput = z.strictObject({
  message: z.string().min(1).max(100_000).describe("What to ask the assistant"),
  thread_id: idSchema.optional().describe("The thread an earlier call answered with, to continue that conversation; a new thread when absent"),
});

/** What a call answers besides the text: the thread it ran on, to continue it. */
const toolOutput = z.object({
  answer: z.string().describe("The assistant's answer: the text of its last message"),
  thread_id: z.string().describe("The thread the call ran on: pass it again to continue the conversation"),
});

const inputSchema = z.toJSONSchema(toolInput) as Tool["inputSchema"];
const outputSchema = z.toJSONSchema(toolOutput) as Tool["outputSchema"];

/** Assistants read per store page: a tools/list page holds those of them the principal may use. */
const PAGE_SIZE = 100;

/** The MCP tool an assistant is. */
function toolOf(assistant: Assistant): Tool {
  return {
    name: toolNameOf(assistant),
    title: assistant.name,
    description: assistant.description || `Sends a message to the assistant "${assistant.name}" and answers with its reply.`,
    inputSchema,
    outputSchema,
    // A run changes the thread it runs on; it is no lookup that could be repeated at will.
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/**
 * The tenant's assistants as tools, those the principal may use (an API key can be restricted to
 * some), read from the store on every request: a tool appears and goes with its assistant, on every
 * replica at once, and no replica keeps a list that could go stale. Paged as the store pages them:
 * `nextCursor` is the store's.
 */
export async function listAssistantTools(stores: Pick<GatewayStores, "assistants">, principal: Principal, cursor?: string): Promise<ListToolsResult> {
  const page = await stores.assistants.listAssistants(principal.tenantId, { limit: PAGE_SIZE, cursor });
  const tools = page.items.filter((assistant) => mayUseAssistant(principal, assistant.id)).map(toolOf);
  return page.nextCursor ? { tools, nextCursor: page.nextCursor } : { tools };
}

/** The assistant whose tool is `name`, among those the principal may use; `undefined` when none is (another tenant's, a restricted one or a deleted one alike). */
export async function findAssistantTool(stores: Pick<GatewayStores, "assistants">, principal: Principal, name: string): Promise<Assistant | undefined> {
  let cursor: string | null = null;
  do {
    const page = await stores.assistants.listAssistants(principal.tenantId, { limit: PAGE_SIZE, cursor });
    const found = page.items.find((assistant) => toolNameOf(assistant) === name && mayUseAssistant(principal, assistant.id));
    if (found) return found;
    cursor = page.nextCursor;
  } while (cursor);
  return undefined;
}
