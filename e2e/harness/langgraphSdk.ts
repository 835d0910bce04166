import { Client } from "@langchain/langgraph-sdk";
import { expect } from "vitest";
import { tokenFor } from "./auth";

/** The graph every assistant of the gateway runs. */
export const GRAPH = "react";

let tenants = 0;

/** A tenant of its own for each case: cases on a shared gateway never meet each other's records. */
export const freshTenant = (name: string) => `lg-${name}-${++tenants}-${process.pid}`;

export interface ClientOptions {
  /** More headers on every request (`x-axiom-affinity`, an `authorization` of its own). */
  headers?: Record<string, string>;
  /** Sends no `apiKey` (the SDK would otherwise read one from LANGGRAPH_API_KEY and the like). */
  anonymous?: boolean;
  /** Sees every answer (which replica served it). */
  onResponse?: (response: Response) => void;
}

/** The unmodified LangGraph SDK client, authenticated as `tenant` through its `apiKey`, as users configure it. */
export async function sdkClient(apiUrl: string, tenant: string, options: ClientOptions = {}): Promise<Client> {
  const { onResponse } = options;
  return new Client({
    apiUrl,
    apiKey: options.anonymous ? null : await tokenFor(tenant),
    defaultHeaders: options.headers,
    callerOptions: onResponse
      ? {
          fetch: async (...args: Parameters<typeof fetch>) => {
            const response = await fetch(...args);
            onResponse(response);
            return response;
          },
        }
      : undefined,
  });
}

/** A client of a fresh tenant, with an assistant of the built-in graph (scripted model, the echo tool). */
export async function tenantWithAssistant(apiUrl: string, name: string): Promise<{ client: Client; tenant: string; assistantId: string }> {
  const tenant = freshTenant(name);
  const client = await sdkClient(apiUrl, tenant);
  const { assistant_id } = await client.assistants.create({ graphId: GRAPH, name: "Echo", context: { tools: ["echo"] } });
  return { client, tenant, assistantId: assistant_id };
}

/** A user message as LangGraph input. */
export const say = (content: string) => ({ messages: [{ role: "user", content }] });

export interface StreamedEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** Every event of an SDK stream, as the SDK hands them out. */
export async function collect(stream: AsyncIterable<{ event: string; data: unknown; id?: string }>): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const { event, data, id } of stream) events.push({ event, data, ...(id === undefined ? {} : { id }) });
  return events;
}

export const eventNames = (events: StreamedEvent[]) => events.map((event) => event.event);

/** The text of each message of LangGraph values, `type:content`. */
export const transcript = (values: unknown) => ((values as { messages?: Array<{ type: string; content: unknown }> }).messages ?? []).map((message) => `${message.type}:${String(message.content)}`);

/**
 * Waits until the run runs with its input saved in the thread's state (its last message), so that
 * what stops it from then on finds that input kept. A claimed run reads `running` a moment before it
 * saves its input; a loaded machine may take seconds to get there.
 */
export async function untilRunning(client: Client, threadId: string, runId: string, input: string): Promise<void> {
  await expect.poll(async () => (await client.runs.get(threadId, runId)).status, { timeout: 20_000 }).toBe("running");
  await expect.poll(async () => transcript((await client.threads.getState(threadId)).values).at(-1), { timeout: 20_000 }).toBe(`human:${input}`);
}

/** How the SDK reports a refused request: the status and the body it carried. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; body: { detail: string; code: string } }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { status?: number; text?: string },
  );
  expect(error, "the request was refused").toBeDefined();
  return { status: error!.status!, body: JSON.parse(error!.text!) as { detail: string; code: string } };
}
