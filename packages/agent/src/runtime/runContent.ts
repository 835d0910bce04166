import type { AssistantModelConfig, ErrorCode } from "@axiom-lattice/protocols";
import { boundedJson } from "@axiom-lattice/core";
import { z } from "zod";
import { GRAPH_STREAM_MODES, type GraphStreamMode } from "../graph/graphStreamEvents";
import type { NodeInterrupt } from "../graph/reactGraph";

/**
 * What a user sends to a thread: a message, or LangGraph input (messages as LangGraph clients send
 * them), or neither with a `command` that resumes an interrupted run.
 */
export interface AgentInput {
  message?: string;
  /** `null`: the thread goes on from its checkpoint (a run paused before or after a node continues), as LangGraph's input `null`. */
  input?: GraphInput | null;
}

/**
 * LangGraph input: the graph's input as given. The ReAct graph reads `messages`, added to the thread
 * as given (any form LangChain reads: `{ role, content }`, `{ type, content, id }`, …); a deployed
 * graph reads what its input schema says.
 */
export type GraphInput = Record<string, unknown> & { messages?: unknown[] };

/**
 * LangGraph's command: `resume` becomes the value the `interrupt()` the thread waits on returns;
 * `update` is written to the thread's state (the ReAct graph: its messages added); `goto` runs that
 * node (or those nodes) next. At least one is given.
 */
export interface ResumeCommand {
  resume?: unknown;
  update?: GraphInput;
  goto?: string | string[];
}

/** The graph's settings for one run, over its assistant's (each one given replaces the assistant's). */
export interface RunGraphSettings {
  model?: AssistantModelConfig;
  tools?: string[];
  systemPrompt?: string;
}

/** LangGraph's options of one run. */
export interface GraphRunOptions {
  /** Pause before / after these nodes (`*`: every node): the run ends `interrupted`; input `null` or a resume command continues. */
  interruptBefore?: NodeInterrupt;
  interruptAfter?: NodeInterrupt;
  /** At most this many graph steps (LangGraph's `recursionLimit`, default 25); beyond, the run fails with `GRAPH_RECURSION_LIMIT`. */
  recursionLimit?: number;
  /** Run from this earlier checkpoint of the thread: the thread goes on from there (a fork). */
  checkpointId?: string;
  /** The ReAct graph's settings for this run. */
  settings?: RunGraphSettings;
  /** A deployed graph's run: its `config.configurable`, over its assistant's. */
  configurable?: Record<string, unknown>;
  /** A deployed graph's run: its `context`, over its assistant's. */
  context?: Record<string, unknown>;
  /** A deployed graph's run: its metadata, in its config and on every checkpoint it writes. */
  metadata?: Record<string, unknown>;
  /** Stream the events of subgraphs too, each named with its namespace (`updates|child:1`). */
  streamSubgraphs?: boolean;
}

/** A run that executes a task: set only by the task runtime, never taken from a request. */
export interface TaskRunMarker {
  taskId: string;
}

/** The JSON a queued message carries (`PendingMessage.content`). */
export interface RunContent {
  message?: string;
  input?: GraphInput | null;
  command?: ResumeCommand;
  /** The run executes this task: its end settles the task. */
  task?: TaskRunMarker;
  /**
   * The assistant that runs this message; absent: the thread's. A thread the LangGraph API created
   * belongs to no assistant, and each of its runs names its own.
   */
  assistantId?: string;
  /** The run also emits LangGraph stream events (`graph_event` chunks) of these modes. */
  streamModes?: GraphStreamMode[];
  graph?: GraphRunOptions;
  /**
   * What the API that queued the run keeps with it for its own reads of the run (the LangGraph API:
   * its metadata, config, context, strategy). The runtime never reads it.
   */
  annotations?: Record<string, unknown>;
  /**
   * `multitask_strategy: rollback`: the runs this one replaces (queued or running when it was
   * queued, each asked to stop). Those that were stopped are deleted before this one runs.
   */
  rollback?: string[];
}

/** A message with neither text nor a command, or queued content this runtime cannot read. */
export class InvalidRunInputError extends Error {
  readonly code = "INVALID_RUN_INPUT" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "InvalidRunInputError";
  }
}

const taskMarkerSchema = z.object({ task: z.object({ taskId: z.string().min(1) }) });

// Node names are checked against the ReAct graph's where a run is queued; a deployed graph has its own.
const nodeInterruptSchema = z.union([z.literal("*"), z.array(z.string().min(1).max(128)).max(100)]);
const jsonObjectSchema = z.record(z.string(), z.unknown());

const graphRunOptionsSchema = z.object({
  interruptBefore: nodeInterruptSchema.optional(),
  interruptAfter: nodeInterruptSchema.optional(),
  recursionLimit: z.number().int().min(1).max(10_000).optional(),
  checkpointId: z.string().min(1).max(128).optional(),
  configurable: boundedJson(jsonObjectSchema).optional(),
  context: boundedJson(jsonObjectSchema).optional(),
  metadata: boundedJson(jsonObjectSchema).optional(),
  streamSubgraphs: z.boolean().optional(),
  settings: z
    .object({
      model: z.looseObject({ provider: z.string().min(1) }).optional(),
      tools: z.array(z.string().min(1)).max(100).optional(),
      systemPrompt: z.string().max(100_000).optional(),
    })
    .optional(),
});

// Content is read back from a shared store, possibly written by another replica's version: validate it.
const runContentSchema = z
  .object({
    message: z.string().min(1).optional(),
    input: boundedJson(z.looseObject({ messages: z.array(z.unknown()).max(1000).optional() }))
      .nullable()
      .optional(),
    command: z
      .object({
        resume: boundedJson(z.unknown()).optional(),
        update: boundedJson(z.looseObject({ messages: z.array(z.unknown()).max(1000).optional() })).optional(),
        goto: z.union([z.string().min(1).max(128), z.array(z.string().min(1).max(128)).min(1).max(100)]).optional(),
      })
      .refine((command) => command.resume !== undefined || command.update !== undefined || command.goto !== undefined, "a command needs resume, update or goto")
      .optional(),
    task: taskMarkerSchema.shape.task.optional(),
    assistantId: z.string().min(1).optional(),
    streamModes: z.array(z.enum(GRAPH_STREAM_MODES)).optional(),
    graph: graphRunOptionsSchema.optional(),
    annotations: boundedJson(z.record(z.string(), z.unknown())).optional(),
    rollback: z.array(z.string().min(1)).max(1000).optional(),
  })
  .refine(
    (content) => content.message !== undefined || content.input !== undefined || content.command !== undefined,
    "a message, input or a command is required",
  );

/** The task a queued message runs, if it carries the task marker (read without validating the rest). */
export function taskMarkerOf(content: unknown): TaskRunMarker | undefined {
  const parsed = taskMarkerSchema.safeParse(content);
  return parsed.success ? parsed.data.task : undefined;
}

/** Validates what `addMessage` and the processor hand to a run. */
export function parseRunContent(content: unknown): RunContent {
  const parsed = runContentSchema.safeParse(content);
  if (!parsed.success) throw new InvalidRunInputError(`Invalid run input: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`);
  return parsed.data as RunContent;
}
