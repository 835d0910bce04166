import type { AgentInstanceManager, RunResult, StreamChunk } from "@axiom-lattice/agent";
import { type Logger, QueueFullError } from "@axiom-lattice/core";
import { type Assistant, MessageChunkTypes, endsChunkStream } from "@axiom-lattice/protocols";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { requireThread, threadScope } from "../shared/lookups";
import type { Principal } from "../auth/principal";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";
import type { GatewayStores } from "../stores/gatewayStores";
import type { toolInput } from "./assistantTools";

/** At most one progress notification per this many milliseconds: a model streams tokens far faster than a client needs telling. */
export const PROGRESS_INTERVAL_MS = 250;

/** Tells the client how far the run got: `progress` only ever grows. */
export type ProgressReport = (progress: number, message: string) => Promise<void>;

export interface AssistantCallDependencies {
  stores: Pick<GatewayStores, "threads">;
  agents: Pick<AgentInstanceManager, "getAgent">;
  logger: Logger;
  /** `AXIOM_TENANT_MAX_QUEUED_MESSAGES`: a call is one more queued message of the tenant. */
  tenantQueueLimit?: number;
  /** Counts a call refused for the tenant's queue bound, as the other dialects' runs are. */
  metrics: Pick<GatewayMetrics, "tenantRefusals">;
  /** Holds the tenant's run submissions under way (a call's lookups and queueing), as on its other run routes. */
  submissions: TenantSubmissions;
}

export interface AssistantCallControl {
  /** Aborts once the client is gone: the run is aborted then, wherever it runs. */
  signal: AbortSignal;
  /** Given when the client asked for progress (it sent a progressToken). */
  progress?: ProgressReport;
}

/**
 * A tool call: the message is queued on the thread named (one of the assistant's) or on a new thread
 * of the assistant, as any `wait` run is, and the call answers once the run ended, wherever it ran.
 * The answer is the text of the run's last assistant message; `structuredContent` adds the thread, so
 * the caller can continue the conversation. A run that did not succeed answers `isError`, which MCP
 * keeps for a tool's own failures (the model sees them and may try otherwise).
 */
export async function callAssistant(
  { stores, agents, logger, tenantQueueLimit, metrics, submissions }: AssistantCallDependencies,
  principal: Principal,
  assistant: Assistant,
  input: z.output<typeof toolInput>,
  { signal, progress }: AssistantCallControl,
): Promise<CallToolResult> {
  // Gone before anything was queued: nothing to run for nobody.
  if (signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, "The client left before the call started");
  const { tenantId } = principal;
  const { thread, agent, messageId, completion } = await submissions.submit(tenantId, async () => {
    const thread = input.thread_id
      ? await requireThread({ stores }, principal, input.thread_id, assistant.id)
      : await stores.threads.createThread(tenantId, { assistantId: assistant.id, metadata: { source: "mcp" } });
    const agent = agents.getAgent(threadScope(thread));
    const queued = await agent.addMessage({ message: input.message }, { mode: "wait", tenantQueueLimit }).catch(async (error: unknown) => {
      if (error instanceof QueueFullError && error.bound === "tenant") metrics.tenantRefusals.inc({ tenant: tenantId, reason: "queue_full" });
      // A refused call leaves no thread behind that nobody was told of.
      if (!input.thread_id) await stores.threads.deleteThread(tenantId, thread.id);
      throw error;
    });
    return { thread, agent, ...queued };
  });
  const abort = () => {
    agent.abort(messageId).catch((error: unknown) => logger.warn({ err: error, threadId: thread.id, messageId }, "MCP tool call: aborting the run of a client that left failed"));
  };
  signal.addEventListener("abort", abort, { once: true });
  // Left while the message was being queued: the event has come and gone.
  if (signal.aborted) abort();
  try {
    if (progress) void reportProgress(agent.chunkStream(messageId), progress, signal).catch((error: unknown) => logger.debug({ err: error, messageId }, "MCP tool call: progress stopped"));
    return resultOf(await completion, thread.id);
  } finally {
    signal.removeEventListener("abort", abort);
  }
}

/** Follows the run's chunks until it ends (or the client left), telling the client of them at most every {@link PROGRESS_INTERVAL_MS}. */
async function reportProgress(chunks: AsyncIterable<StreamChunk>, report: ProgressReport, signal: AbortSignal): Promise<void> {
  let reportedAt = Number.NEGATIVE_INFINITY;
  for await (const chunk of chunks) {
    if (endsChunkStream(chunk) || signal.aborted) return;
    const now = Date.now();
    // A tool call is news whenever it comes; tokens are summed up between reports.
    if (chunk.type !== MessageChunkTypes.TOOL_CALL && now - reportedAt < PROGRESS_INTERVAL_MS) continue;
    reportedAt = now;
    // Chunk indexes grow along the run, also across a hand-over to another replica.
    await report(chunk.index + 1, describe(chunk));
  }
}

function describe(chunk: StreamChunk): string {
  const name = (chunk.data as { name?: unknown } | null)?.name;
  switch (chunk.type) {
    case MessageChunkTypes.MESSAGE_CHUNK:
      return "Writing the answer";
    case MessageChunkTypes.TOOL_CALL:
      return `Calling the tool ${String(name)}`;
    case MessageChunkTypes.TOOL_RESULT:
      return `The tool ${String(name)} answered`;
    case MessageChunkTypes.RUN_HANDED_OVER:
    case MessageChunkTypes.RUN_RESUMED:
      return "The run moved to another replica";
    default:
      return "Working";
  }
}

function resultOf(run: RunResult, threadId: string): CallToolResult {
  const answer = [...run.messages].reverse().find((message) => message.type === "ai" && message.content)?.content ?? "";
  if (run.status === "success") return { content: [{ type: "text", text: answer }], structuredContent: { answer, thread_id: threadId } };
  const why =
    run.status === "interrupted"
      ? `The run on thread ${threadId} is waiting for input (${JSON.stringify(run.interrupts?.map((interrupt) => interrupt.value))}); resume it through the gateway's API`
      : `The run on thread ${threadId} ended ${run.status}${run.error ? `: ${run.error}` : ""}`;
  return { isError: true, content: [{ type: "text", text: why }], structuredContent: { answer, thread_id: threadId } };
}
