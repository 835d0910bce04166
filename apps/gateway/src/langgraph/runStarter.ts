import { type Agent, type AddMessageResult, REACT_GRAPH_ID, type RunMode, ThreadBusyError } from "@axiom-lattice/agent";
import { QueueFullError, checkEgressUrl } from "@axiom-lattice/core";
import { ANY_ASSISTANT, type Assistant, type CreateThreadRequest, type Thread } from "@axiom-lattice/protocols";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { assistantReferenceCheck } from "../shared/assistantReferences";
import { type Requester, mayUseThread, requireUsable, threadScope } from "../shared/lookups";
import { requireCheckpoint } from "./checkpointRefs";
import { type RunCreateBody, type RunPlan, planForGraph } from "./runRequest";
import { assistantIdOf } from "./graphAssistants";
import { configurableOf } from "./graphs";
import { isOwnPath } from "../graphs/loopback";

/**
 * A thread's config once a run of `assistant` with `runConfig` was queued on it, as LangGraph Platform
 * merges it: the assistant's, the thread's, then the run's over them, their `configurable`s alike.
 */
function threadConfigAfter(thread: Thread, assistant: Assistant, runConfig: Record<string, unknown>): Record<string, unknown> {
  const configurable = { ...configurableOf(assistant.graphConfig), ...configurableOf(thread.config), ...configurableOf(runConfig) };
  return { ...assistant.graphConfig, ...thread.config, ...runConfig, configurable };
}

/** LangGraph Platform's words for a busy thread under `multitask_strategy: reject`. */
const THREAD_BUSY_DETAIL = "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.";

export interface StartedRun<M extends RunMode> {
  agent: Agent;
  result: AddMessageResult & (M extends "stream" ? { stream: NonNullable<AddMessageResult["stream"]> } : M extends "wait" ? { completion: NonNullable<AddMessageResult["completion"]> } : object);
}

/**
 * Starts LangGraph runs: the run is a message queued on the thread, through the same queue, run lease
 * and processors as `/api/runs`, carrying its assistant, input, stream modes and what the run's reads
 * show. The thread is labelled with the assistant and graph that ran it last (as LangGraph Platform
 * labels its threads, which clients search by).
 */
/** What starting a run uses: the runtime, its stores and limits, and what an assistant's references are checked against. */
export type RunStarterServices = Pick<LanggraphServices, "agents" | "stores" | "config" | "metrics" | "logger" | "mcp" | "plugins" | "graphs" | "submissions">;

export function langgraphRunStarter(gateway: RunStarterServices) {
  const { agents, stores, config, metrics, logger, submissions } = gateway;
  const { maxQueuedMessages } = config.tenantLimits;
  const checkReferences = assistantReferenceCheck(gateway);

  /**
   * The thread a run goes to, as `who` (a principal, or a tenant id for the gateway's own runs) may use
   * it; with `if_not_exists: create`, created when missing (with `creation`'s metadata and TTL).
   */
  const threadForRun = async (
    who: Requester,
    threadId: string,
    ifNotExists: RunCreateBody["if_not_exists"],
    creation: Pick<CreateThreadRequest, "metadata" | "ttlMinutes"> = {},
  ): Promise<Thread> => {
    const tenantId = typeof who === "string" ? who : who.tenantId;
    const thread = await stores.threads.getThread(tenantId, threadId);
    // A thread another assistant's runs used is as missing to a credential restricted away from that assistant.
    if (thread && !mayUseThread(who, thread)) throw new HttpError("NOT_FOUND", `Thread ${threadId} not found`);
    if (thread) return thread;
    if (ifNotExists === "create") {
      try {
        return await stores.threads.createThread(tenantId, { ...creation, id: threadId, assistantId: ANY_ASSISTANT });
      } catch (error) {
        // A concurrent run created it first.
        const created = await stores.threads.getThread(tenantId, threadId);
        if (created) return created;
        throw error;
      }
    }
    throw new HttpError("NOT_FOUND", `Thread ${threadId} not found`);
  };

  /**
   * Labels the thread with the run's assistant and graph and, for a deployed graph, merges the run's
   * config into the thread's (the ReAct graph reads none of it, and its assistants' may hold a model's
   * key); writes only what changed.
   */
  const labelThread = async (thread: Thread, assistant: Assistant, runConfig: Record<string, unknown>) => {
    const labelled = thread.metadata.assistant_id === assistant.id && thread.metadata.graph_id === assistant.graph;
    const config = assistant.graph === REACT_GRAPH_ID ? thread.config : threadConfigAfter(thread, assistant, runConfig);
    const configChanged = config !== undefined && JSON.stringify(config) !== JSON.stringify(thread.config ?? {});
    if (labelled && !configChanged) return;
    try {
      await stores.threads.updateThread(thread.tenantId, thread.id, labelled ? {} : { graph_id: assistant.graph, assistant_id: assistant.id }, configChanged ? { config } : {});
    } catch (error) {
      // The run is queued: a label that could not be written only keeps the thread out of some searches,
      // and its state read with the config it had.
      logger.warn({ err: error, threadId: thread.id }, "LangGraph thread not labelled with its assistant and config");
    }
  };

  const noAssistant = (body: RunCreateBody) =>
    new HttpError("NOT_FOUND", `No assistant found for "${body.assistant_id}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);

  /** Refuses, as missing, a run's assistant `who` may not use (an API key restricted to others), before anything is written. */
  const requireRunnable = (who: Requester, body: RunCreateBody) => requireUsable(who, assistantIdOf(gateway.graphs, body.assistant_id), () => noAssistant(body));

  /**
   * `who`: the request's principal (its tenant is the thread's), or the tenant alone for a run the
   * gateway starts itself (a cron's fire). `runId`: the run's id when the caller needs a stable one
   * (a cron's fire); a new one otherwise.
   */
  const startRun = <M extends RunMode>(who: Requester, thread: Thread, body: RunCreateBody, givenPlan: RunPlan, mode: M, runId?: string): Promise<StartedRun<M>> => {
    const submit = () => submitRun(who, thread, body, givenPlan, mode, runId);
    return submissions ? submissions.submit(thread.tenantId, submit) : submit();
  };

  const submitRun = async <M extends RunMode>(who: Requester, thread: Thread, body: RunCreateBody, givenPlan: RunPlan, mode: M, runId?: string): Promise<StartedRun<M>> => {
    requireRunnable(who, body);
    const assistant = await stores.assistants.getAssistant(thread.tenantId, assistantIdOf(gateway.graphs, body.assistant_id));
    if (!assistant) throw noAssistant(body);
    const plan = planForGraph(givenPlan, body, assistant.graph);
    // Checked when written, as every URL a tenant names; every connection is checked again.
    if (body.webhook && !isOwnPath(body.webhook)) await checkEgressUrl(body.webhook, config.upstream.egress);
    // The run's own settings are checked as an assistant's.
    if (plan.graph.settings) await checkReferences(thread.tenantId, plan.graph.settings);
    const agent = agents.getAgent(threadScope(thread));
    if (plan.graph.checkpointId !== undefined) await requireCheckpoint(agent, thread.id, { checkpointId: plan.graph.checkpointId });
    // A run is a use: a thread's TTL restarts before the run is queued, so no expiry sweep takes it in between.
    if (thread.ttlMinutes !== undefined) await stores.threads.touchThread(thread.tenantId, thread.id);
    try {
      const result = await agent.addMessage(plan.input === undefined ? {} : { input: plan.input }, {
        mode,
        messageId: runId,
        command: plan.command,
        assistantId: assistant.id,
        streamModes: plan.streamModes,
        graph: plan.graph,
        annotations: plan.annotations,
        multitaskStrategy: plan.multitaskStrategy,
        delayMs: plan.delayMs,
        tenantQueueLimit: maxQueuedMessages > 0 ? maxQueuedMessages : undefined,
      });
      await labelThread(thread, assistant, plan.annotations.config);
      return { agent, result: result as StartedRun<M>["result"] };
    } catch (error) {
      if (error instanceof ThreadBusyError) throw new HttpError("THREAD_BUSY", THREAD_BUSY_DETAIL);
      if (error instanceof QueueFullError && error.bound === "tenant") metrics.tenantRefusals.inc({ tenant: thread.tenantId, reason: "queue_full" });
      throw error;
    }
  };

  return { threadForRun, startRun, requireRunnable };
}
