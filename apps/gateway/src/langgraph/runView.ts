import type { PendingMessage, RunStatus, Thread } from "@axiom-lattice/protocols";
import { z } from "zod";

/** LangGraph's run statuses (this gateway never answers `timeout`: its runs have no time limit). */
export const RUN_STATUSES = ["pending", "running", "error", "success", "timeout", "interrupted"] as const;
export type LanggraphRunStatus = (typeof RUN_STATUSES)[number];

/**
 * A run's status in LangGraph's terms. A run that paused on `interrupt()` ended well (`success`; the
 * thread is `interrupted`); one stopped by a cancel or an `interrupt` strategy is `interrupted`.
 */
export const LANGGRAPH_RUN_STATUS: Record<RunStatus, LanggraphRunStatus> = {
  pending: "pending",
  running: "running",
  success: "success",
  interrupted: "success",
  error: "error",
  aborted: "interrupted",
};

const jsonObject = z.record(z.string(), z.unknown());
const nodeInterrupt = z.union([z.literal("*"), z.array(z.string())]).nullable();

/** A run as the LangGraph API shows it: `run_id` is the id of the queued message that is the run. */
export const runView = z.object({
  run_id: z.string(),
  thread_id: z.string(),
  assistant_id: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
  status: z.enum(RUN_STATUSES),
  metadata: jsonObject,
  multitask_strategy: z.enum(["reject", "enqueue", "interrupt", "rollback"]).nullable(),
  kwargs: z
    .object({
      input: z.unknown(),
      command: z.unknown(),
      config: jsonObject.describe("As given, with `configurable.checkpoint_id` when the run starts from an earlier checkpoint (as the platform shows it)"),
      context: jsonObject,
      stream_mode: z.array(z.string()),
      interrupt_before: nodeInterrupt,
      interrupt_after: nodeInterrupt,
      webhook: z.string().nullable(),
    })
    .describe("What the run was created with"),
}).meta({ id: "LangGraphRun" });

export type RunView = z.input<typeof runView>;

// Content is read back from the shared queue: a run queued by /api (a `message`) has none of this.
const runContentSchema = z.looseObject({
  assistantId: z.string().optional(),
  input: z.unknown().optional(),
  command: z.unknown().optional(),
  // The graph's options the agent runs it with (`RunContent.graph`).
  graph: z
    .looseObject({
      interruptBefore: nodeInterrupt.optional(),
      interruptAfter: nodeInterrupt.optional(),
      checkpointId: z.string().optional(),
    })
    .optional(),
  annotations: z
    .looseObject({
      metadata: jsonObject.optional(),
      config: jsonObject.optional(),
      context: jsonObject.optional(),
      stream_mode: z.array(z.string()).optional(),
      multitask_strategy: z.enum(["reject", "enqueue", "interrupt", "rollback"]).optional(),
      webhook: z.string().optional(),
    })
    .optional(),
});

/** The stream modes a run was queued with (none for a run queued by `/api`). */
export function streamModesOfRun(message: PendingMessage): string[] {
  const content = runContentSchema.safeParse(message.content);
  return content.success ? (content.data.annotations?.stream_mode ?? []) : [];
}

/** A queued message of `thread` as a LangGraph run. */
export function toRunView(message: PendingMessage, thread: Thread): RunView {
  const parsed = runContentSchema.safeParse(message.content);
  const content = parsed.success ? parsed.data : {};
  const annotations = content.annotations ?? {};
  const graph = content.graph ?? {};
  const config = annotations.config ?? {};
  const configurable = typeof config.configurable === "object" && config.configurable !== null ? config.configurable : {};
  return {
    run_id: message.id,
    thread_id: thread.id,
    assistant_id: content.assistantId ?? thread.assistantId,
    created_at: message.createdAt,
    updated_at: message.finishedAt ?? message.startedAt ?? message.createdAt,
    status: LANGGRAPH_RUN_STATUS[message.runStatus],
    metadata: annotations.metadata ?? {},
    multitask_strategy: annotations.multitask_strategy ?? null,
    kwargs: {
      input: content.input ?? null,
      command: content.command ?? null,
      config: graph.checkpointId === undefined ? config : { ...config, configurable: { ...configurable, checkpoint_id: graph.checkpointId } },
      context: annotations.context ?? {},
      stream_mode: annotations.stream_mode ?? [],
      interrupt_before: graph.interruptBefore ?? null,
      interrupt_after: graph.interruptAfter ?? null,
      webhook: annotations.webhook ?? null,
    },
  };
}
