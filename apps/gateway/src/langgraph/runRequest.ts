import {
  GRAPH_NODES,
  REACT_GRAPH_ID,
  GRAPH_STREAM_MODES,
  type GraphInput,
  type GraphRunOptions,
  type GraphStreamMode,
  type MultitaskStrategy,
  type NodeInterrupt,
  type ResumeCommand,
  type RunGraphSettings,
} from "@axiom-lattice/agent";
import type { IncomingHttpHeaders } from "node:http";
import { boundedJson } from "@axiom-lattice/core";
import { z } from "zod";
import { HttpError } from "../http/errors";
import { REFERENCE_CODES } from "../shared/assistantReferences";
import { idSchema } from "../http/ids";
import { checkpointIdOf, checkpointRefShape } from "./checkpointRefs";
import { configurableOf, parseReactContext, reactSettingsIn } from "./graphs";
import { checkReactMessages } from "./messageInput";
import { refuseUnsupported, unsupportedShape } from "./unsupported";

const jsonObject = boundedJson(z.record(z.string().max(256), z.unknown()));

/** What LangGraph runs may ask that this gateway does not do; refused with NOT_SUPPORTED. */
const RUN_UNSUPPORTED = {
  feedback_keys: "LangSmith feedback",
  langsmith_tracer: "LangSmith tracing",
};

/** The longest delay a run may ask (`after_seconds`): 14 days. */
const MAX_AFTER_SECONDS = 14 * 24 * 3600;

const nodeInterrupt = z
  .union([z.literal("*"), z.array(z.string().max(128)).max(100)])
  .optional()
  .describe(`Nodes to pause at (the ReAct graph's: ${GRAPH_NODES.join(", ")}), or * for every node: the run ends, its thread interrupted; a run with input null continues`);

/** A graph's input, checked by the graph that runs it (the ReAct graph reads `messages`). */
const graphInput = boundedJson(z.record(z.string().max(256), z.unknown()));

/** The body of every LangGraph run creation (`/threads/{id}/runs…` and the stateless `/runs…`). */
export const runCreateSchema = z.strictObject({
  assistant_id: idSchema.describe("The assistant that runs it: any of the tenant's, whichever ran the thread before"),
  input: graphInput
    .nullable()
    .optional()
    .describe("The graph's input (the ReAct graph's: `messages` to add, in any form LangChain reads); null: the thread goes on from its checkpoint"),
  command: z
    .strictObject({
      resume: z.unknown().optional().describe("What the interrupt the thread waits on returns"),
      update: graphInput.optional().describe("Written to the thread's state before the graph goes on (the ReAct graph's: `messages` to add)"),
      goto: z
        .union([z.string().min(1).max(128), z.array(z.string().min(1).max(128)).min(1).max(100)])
        .optional()
        .describe("The node (or nodes) that run next"),
    })
    .nullable()
    .optional(),
  config: jsonObject
    .optional()
    .describe("`recursion_limit` bounds its steps; `configurable` reaches a deployed graph over its assistant's (for the ReAct graph it may carry the graph's settings, as `context`)"),
  context: jsonObject.optional().describe("Reaches a deployed graph over its assistant's; the ReAct graph's settings (model, tools, system_prompt) given here replace the assistant's for this run"),
  interrupt_before: nodeInterrupt,
  interrupt_after: nodeInterrupt,
  ...checkpointRefShape,
  metadata: jsonObject.optional(),
  webhook: z.string().max(2048).optional().describe("POSTed the run, its thread's values and its error once it ended; refused when the egress policy refuses its host (as a model's base URL). A path (`/custom/webhook`) is the gateway's own: called at its own address"),
  stream_mode: z
    .union([z.string(), z.array(z.string()).max(10)])
    .optional()
    .describe(`${GRAPH_STREAM_MODES.join(", ")}; default values`),
  stream_subgraphs: z.boolean().optional().describe("Stream the subgraphs' events too, named with their namespace (`updates|child:1`)"),
  stream_resumable: z.boolean().optional().describe("Every run's stream is resumable here: no effect"),
  multitask_strategy: z
    .enum(["reject", "enqueue", "interrupt", "rollback"])
    .default("reject")
    .describe(
      "When the thread is busy: refuse (409), queue behind, stop the run in progress (wherever it runs), or rollback: stop every queued and running run and delete them before this one runs",
    ),
  if_not_exists: z.enum(["create", "reject"]).default("reject").describe("create: a missing thread is created; reject: 404"),
  on_disconnect: z.enum(["cancel", "continue"]).default("continue").describe("Streams: cancel stops the run when its client leaves before the end (as a cancel does, wherever it runs); continue lets it run"),
  after_seconds: z
    .number()
    .min(0)
    .max(MAX_AFTER_SECONDS)
    .optional()
    .describe("Run no sooner than this many seconds from now, on whichever replica then takes the thread: created now (pending, with its run_id), runnable once due"),
  on_completion: z.enum(["delete", "keep"]).default("delete").describe("Stateless runs: delete their thread once they end, or keep it"),
  durability: z.enum(["exit", "async", "sync"]).optional().describe("Every step is checkpointed here: no effect"),
  checkpoint_during: z.boolean().optional().describe("Every step is checkpointed here: no effect"),
  ...unsupportedShape(RUN_UNSUPPORTED),
});

export type RunCreateBody = z.output<typeof runCreateSchema>;

/** What creating a run may answer besides success, on a thread of the caller's or a stateless one (which is never busy). */
export const RUN_CREATE_ERRORS = ["NOT_FOUND", "NOT_SUPPORTED", "QUEUE_FULL", "RATE_LIMITED", "TOO_MANY_SUBMISSIONS", "INVALID_RUN_INPUT", ...REFERENCE_CODES] as const;

/** What a valid run creation queues. */
export interface RunPlan {
  /** `null`: the thread goes on from its checkpoint. */
  input?: GraphInput | null;
  command?: ResumeCommand;
  streamModes: GraphStreamMode[];
  graph: GraphRunOptions;
  multitaskStrategy: MultitaskStrategy;
  /** Whether a stream of it cancels it when its client leaves (`on_disconnect: cancel`). */
  cancelOnDisconnect: boolean;
  /** Kept with the run for its reads (`RunContent.annotations`). */
  annotations: RunAnnotations;
  /** `after_seconds`, in ms: runnable no sooner. */
  delayMs?: number;
}

/** What the LangGraph API keeps with a queued run, for `GET /threads/{id}/runs…`. */
export type RunAnnotations = {
  metadata: Record<string, unknown>;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  stream_mode: GraphStreamMode[];
  multitask_strategy: MultitaskStrategy;
  /** Called with the run once it ended (`runWebhooks`). */
  webhook?: string;
};

const notSupported = (message: string) => new HttpError("NOT_SUPPORTED", message);

function streamModesOf(requested: string | string[] | undefined): GraphStreamMode[] {
  const modes = requested === undefined ? ["values"] : [requested].flat();
  for (const mode of modes) {
    if (!(GRAPH_STREAM_MODES as readonly string[]).includes(mode)) {
      throw notSupported(`stream_mode ${mode} is not supported by this gateway (it streams ${GRAPH_STREAM_MODES.join(", ")})`);
    }
  }
  return [...new Set(modes as GraphStreamMode[])];
}

/** The ReAct graph's nodes a pause names; a deployed graph checks its own. */
function checkReactNodes(field: string, requested: NodeInterrupt | undefined): void {
  if (requested === undefined || requested === "*") return;
  const unknown = requested.find((node) => !(GRAPH_NODES as readonly string[]).includes(node));
  if (unknown !== undefined) throw new HttpError("INVALID_REQUEST", `${field}: the graph has no node ${unknown} (it has ${GRAPH_NODES.join(", ")})`);
}

/**
 * The graph's settings a run gives for itself, in `context` or (as LangGraph clients before context
 * sent them) `config.configurable`; `context` wins. Checked as an assistant's; a model's API key is
 * refused: a run's content is not sealed as an assistant's key is (a tenant's model provider keeps one).
 */
function runSettingsOf(configurable: Record<string, unknown> | undefined, context: Record<string, unknown> | undefined): RunGraphSettings | undefined {
  const picked = reactSettingsIn({ ...configurable, ...context });
  if (Object.keys(picked).length === 0) return undefined;
  const { model, tools, system_prompt: systemPrompt } = parseReactContext(picked);
  if (model?.apiKey !== undefined) throw notSupported("context.model.apiKey is not supported on a run: name a model provider of the tenant's, or set the key on the assistant");
  return { ...(model ? { model } : {}), ...(tools ? { tools } : {}), ...(systemPrompt === undefined ? {} : { systemPrompt }) };
}

function recursionLimitOf(config: Record<string, unknown>): number | undefined {
  const limit = config.recursion_limit;
  if (limit === undefined) return undefined;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new HttpError("INVALID_REQUEST", "config.recursion_limit: an integer from 1 to 10000");
  return limit;
}

/** LangGraph's options of the run, checked as far as they do not depend on its graph. */
function graphRunOptionsOf(body: RunCreateBody, config: Record<string, unknown>): GraphRunOptions {
  const checkpointId = checkpointIdOf(body);
  const { interrupt_before: interruptBefore, interrupt_after: interruptAfter } = body;
  const recursionLimit = recursionLimitOf(config);
  return {
    ...(interruptBefore === undefined ? {} : { interruptBefore }),
    ...(interruptAfter === undefined ? {} : { interruptAfter }),
    ...(recursionLimit === undefined ? {} : { recursionLimit }),
    ...(checkpointId === undefined ? {} : { checkpointId }),
    ...(body.stream_subgraphs ? { streamSubgraphs: true } : {}),
  };
}

/**
 * The plan for the graph that runs it. The ReAct graph's: messages LangChain can read, its own node
 * names, and the settings the run gives for itself (checked as an assistant's). A deployed graph's:
 * the run's `config.configurable` and `context` given to it, its input and nodes its own to check.
 */
export function planForGraph(plan: RunPlan, body: RunCreateBody, graphId: string): RunPlan {
  const { config } = plan.annotations;
  if (graphId !== REACT_GRAPH_ID) {
    const given = configurableOf(config);
    // No input and no command: the thread goes on from its checkpoint, as on the platform.
    const input = plan.input === undefined && !plan.command ? { input: null } : {};
    const graph = { ...plan.graph, ...(given ? { configurable: given } : {}), ...(body.context ? { context: body.context } : {}), ...(body.metadata ? { metadata: body.metadata } : {}) };
    return { ...plan, ...input, graph };
  }
  const { input, command } = plan;
  if (input === undefined && !command) throw new HttpError("INVALID_REQUEST", "input (with messages; null to go on from the checkpoint) or a command is required");
  if (input) checkReactMessages("input", input);
  if (command?.update) checkReactMessages("command.update", command.update);
  if (command?.goto !== undefined) checkReactNodes("command.goto", [command.goto].flat());
  checkReactNodes("interrupt_before", plan.graph.interruptBefore);
  checkReactNodes("interrupt_after", plan.graph.interruptAfter);
  const settings = runSettingsOf(configurableOf(config), body.context);
  return settings ? { ...plan, graph: { ...plan.graph, settings } } : plan;
}

/** The command as queued: the fields given, nothing else. */
const resumeCommandOf = ({ resume, update, goto }: NonNullable<RunCreateBody["command"]>): ResumeCommand => ({
  ...(resume === undefined ? {} : { resume }),
  ...(update ? { update } : {}),
  ...(goto ? { goto } : {}),
});

/** Headers a run's config never carries: credentials and the tenant. */
const HEADERS_KEPT_OUT = new Set(["x-api-key", "x-service-key", "x-tenant-id"]);

/**
 * The caller's `x-…` headers and `user-agent` in the run's `config.configurable`, over the body's, as
 * LangGraph Platform gives them to graphs: a graph (or the operator's middleware) reads the caller's
 * headers there.
 */
function withCallerHeaders(config: Record<string, unknown>, headers: IncomingHttpHeaders): Record<string, unknown> {
  const passed = Object.entries(headers).filter(([name]) => (name.startsWith("x-") && !HEADERS_KEPT_OUT.has(name)) || name === "user-agent");
  if (passed.length === 0) return config;
  const values = Object.fromEntries(passed.map(([name, value]) => [name, [value].flat().join(", ")]));
  return { ...config, configurable: { ...configurableOf(config), ...values } };
}

/**
 * Checks a run creation and says what to queue: refuses what the gateway does not do with 422
 * `NOT_SUPPORTED`, and input LangChain could not read with 422 `INVALID_REQUEST`, before anything is written.
 */
export function planRun(body: RunCreateBody, headers: IncomingHttpHeaders = {}): RunPlan {
  refuseUnsupported(body, RUN_UNSUPPORTED);
  const config = withCallerHeaders(body.config ?? {}, headers);
  const graph = graphRunOptionsOf(body, config);
  const { input, command } = body;
  if (input && command) throw new HttpError("INVALID_REQUEST", "Give input or a command, not both");
  if (command && command.resume === undefined && !command.update && !command.goto) throw new HttpError("INVALID_REQUEST", "A command needs resume, update or goto");
  const streamModes = streamModesOf(body.stream_mode);
  const multitaskStrategy = body.multitask_strategy;
  return {
    ...(command ? { command: resumeCommandOf(command) } : input === undefined ? {} : { input }),
    streamModes,
    graph,
    multitaskStrategy,
    cancelOnDisconnect: body.on_disconnect === "cancel",
    ...(body.after_seconds ? { delayMs: Math.round(body.after_seconds * 1000) } : {}),
    annotations: {
      metadata: body.metadata ?? {},
      config,
      context: body.context ?? {},
      stream_mode: streamModes,
      multitask_strategy: multitaskStrategy,
      ...(body.webhook ? { webhook: body.webhook } : {}),
    },
  };
}
