import { randomUUID } from "node:crypto";
import { type Agent, type AgentInstanceManager, REACT_GRAPH_ID } from "@axiom-lattice/agent";
import type { A2aWireVersion, Assistant, PendingMessage, Thread } from "@axiom-lattice/protocols";
import { type AgentCard, type SendMessageRequest, type Task, type TaskPushNotificationConfig, TaskState } from "@a2a-js/sdk";
import { ExtendedAgentCardNotConfiguredError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { GatewayConfig } from "../config";
import type { TenantSubmissions } from "../http/tenantSubmissions";
import type { GatewayStores } from "../stores/gatewayStores";
import { taskEvents } from "./taskEvents";
import { taskListing } from "./taskListing";
import { taskPushConfigs, toPushConfig } from "./taskPushConfigs";
import { MAX_TASK_INPUTS, continuationId, taskRuns } from "./taskRuns";
import { type TaskViewOptions, isTerminal, taskStateOf, toTask } from "./taskView";
import { clientId, userInput } from "./userInput";

/** What the A2A operations run on: the engine's stores and runtime, the tenants' queue bound and the egress policy. */
export interface A2aEngine {
  stores: Pick<GatewayStores, "threads" | "queue" | "langGraph" | "a2aPushConfigs">;
  agents: AgentInstanceManager;
  /** Holds the tenant's run submissions under way (a message's lookups and queueing), as on its other run routes. */
  submissions: TenantSubmissions;
  config: Pick<GatewayConfig, "tenantLimits" | "upstream">;
}

const stateName = (state: TaskState) => TaskState[state].replace("TASK_STATE_", "").toLowerCase().replace("_", "-");

/** Another message answered the same interrupt first: the queue refused a second run of that id. */
const isDuplicate = (error: unknown) => (error as { code?: unknown } | null)?.code === "DUPLICATE_MESSAGE";

/**
 * The A2A operations on one assistant of one tenant, as the SDK's JSON-RPC handlers call them (in
 * `version`): a context is one of the assistant's threads, a task one of its runs (and the runs that
 * answer its interrupts, see `taskRuns`). Everything is read from the shared stores and followed
 * through the runtime, so a task started on one replica is read, streamed, subscribed to and
 * cancelled from any.
 */
export function assistantTasks(engine: A2aEngine, tenantId: string, assistant: Assistant, card: AgentCard, version: A2aWireVersion): A2ARequestHandler {
  const { stores, agents, config } = engine;
  const scope = { tenantId, assistantId: assistant.id };
  const agentOf = (threadId: string): Agent => agents.getAgent({ ...scope, threadId });
  const pushConfigs = taskPushConfigs(engine, tenantId, version);
  const { maxQueuedMessages } = config.tenantLimits;
  const queueOptions = { tenantQueueLimit: maxQueuedMessages > 0 ? maxQueuedMessages : undefined };

  const requireRuns = async (taskId: string): Promise<PendingMessage[]> => {
    const runs = await taskRuns(stores.queue, scope, taskId);
    if (!runs) throw new TaskNotFoundError(`Task ${taskId} not found`);
    return runs;
  };

  const readTask = async (taskId: string, options: TaskViewOptions = {}): Promise<{ runs: PendingMessage[]; task: Task }> => {
    const runs = await requireRuns(taskId);
    return { runs, task: toTask(runs, await agentOf(runs[0].threadId).stateSnapshot(), options) };
  };

  /** The context a new task goes to: the one named (created on first use), or a new one. */
  const contextFor = async (contextId: string | undefined): Promise<Thread> => {
    if (contextId === undefined) return stores.threads.createThread(tenantId, { assistantId: assistant.id });
    const found = await stores.threads.getThread(tenantId, contextId);
    if (found) {
      if (found.assistantId !== assistant.id) throw new RequestMalformedError(`Context ${contextId} is not one of this assistant's`);
      return found;
    }
    try {
      return await stores.threads.createThread(tenantId, { id: contextId, assistantId: assistant.id });
    } catch (error) {
      // A concurrent message created it first.
      const created = await stores.threads.getThread(tenantId, contextId);
      if (created?.assistantId === assistant.id) return created;
      throw error;
    }
  };

  /** Queues a new task's run. Its id is chosen first, so that a push configuration sent with it is there before it can end. */
  const startNewTask = async (text: string, contextId: string | undefined, push: TaskPushNotificationConfig | undefined) => {
    const context = await contextFor(contextId);
    const agent = agentOf(context.id);
    // The built-in graph takes a message; a deployed graph reads its input as LangGraph clients send it.
    const input = assistant.graph === REACT_GRAPH_ID ? { message: text } : { input: { messages: [{ role: "user", content: text }] } };
    const taskId = randomUUID();
    const pushConfig = push && (await pushConfigs.set(taskId, push));
    try {
      await agent.addMessage(input, { ...queueOptions, messageId: taskId });
    } catch (error) {
      if (pushConfig) await pushConfigs.remove(pushConfig);
      // A refused task leaves no context of its own behind: one the client named may be in use by another of its messages.
      if (contextId === undefined) await stores.threads.deleteThread(tenantId, context.id).catch(() => false);
      throw error;
    }
    return { agent, taskId, runId: taskId };
  };

  /**
   * Queues the message's run: a new task, or the answer to the interrupt the task named waits on
   * (its next run), as one of the tenant's run submissions. Anything else sent to an existing task is
   * refused, nothing queued.
   */
  const startTask = (request: SendMessageRequest): Promise<{ agent: Agent; taskId: string; runId: string }> =>
    engine.submissions.submit(tenantId, () => queueTaskRun(request));

  const queueTaskRun = async ({ message, configuration }: SendMessageRequest): Promise<{ agent: Agent; taskId: string; runId: string }> => {
    const text = userInput(message);
    const push = configuration?.taskPushNotificationConfig;
    const taskId = clientId("params.message.taskId", message!.taskId);
    const contextId = clientId("params.message.contextId", message!.contextId);
    if (taskId === undefined) return startNewTask(text, contextId, push);
    const runs = await requireRuns(taskId);
    if (contextId !== undefined && contextId !== runs[0].threadId) throw new RequestMalformedError(`Task ${taskId} is in context ${runs[0].threadId}, not ${contextId}`);
    const state = taskStateOf(runs.at(-1)!);
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError(`Task ${taskId} is ${stateName(state)}: only a task in input-required takes another message${isTerminal(state) ? "" : " (wait for it, or subscribe to it)"}`);
    }
    if (runs.length > MAX_TASK_INPUTS) throw new UnsupportedOperationError(`Task ${taskId} took its ${MAX_TASK_INPUTS} inputs: start a new task in its context`);
    if (push) await pushConfigs.set(taskId, push);
    const agent = agentOf(runs[0].threadId);
    try {
      const { messageId } = await agent.addMessage({}, { ...queueOptions, messageId: continuationId(taskId, runs.length), command: { resume: text } });
      return { agent, taskId, runId: messageId };
    } catch (error) {
      if (isDuplicate(error)) throw new UnsupportedOperationError(`Task ${taskId} was answered by another message just now`);
      throw error;
    }
  };

  const ended = (taskId: string) => async () => (await readTask(taskId)).task;

  return {
    getAgentCard: async () => card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError("The agent card is the same for every credential: read it at the agent card URL");
    },

    async sendMessage(request) {
      const { agent, taskId, runId } = await startTask(request);
      // Followed wherever it runs, to its end (an interrupt included), unless the client asked not to wait.
      if (!request.configuration?.returnImmediately) await agent.waitForRun(runId);
      return (await readTask(taskId, { historyLength: request.configuration?.historyLength })).task;
    },

    async *sendMessageStream(request) {
      const { taskId, agent, runId } = await startTask(request);
      const { task } = await readTask(taskId, { historyLength: request.configuration?.historyLength });
      yield { payload: { $case: "task", value: task } };
      // A resumed task's earlier runs ended: only the run just queued is followed.
      yield* taskEvents(task, agent.chunkStream(runId), { deltas: true, ended: ended(taskId) });
    },

    async getTask(request) {
      return (await readTask(request.id, { historyLength: request.historyLength })).task;
    },

    listTasks: taskListing({ stores, scope, agentOf }),

    async cancelTask(request) {
      const { runs, task } = await readTask(request.id);
      const state = task.status!.state;
      if (isTerminal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        throw new TaskNotCancelableError(`Task ${request.id} is ${stateName(state)}: only a submitted or working task can be cancelled`);
      }
      // Recorded on the run, which its replica (or the one taking it over) stops; answered once it did, or within half a run lease.
      await agentOf(task.contextId).abort(runs.at(-1)!.id);
      return (await readTask(request.id)).task;
    },

    async *resubscribe(request) {
      const { runs, task } = await readTask(request.id);
      const state = task.status!.state;
      if (isTerminal(state)) throw new UnsupportedOperationError(`Task ${request.id} is ${stateName(state)}: it has ended; read it with GetTask`);
      yield { payload: { $case: "task", value: task } };
      if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return;
      yield* taskEvents(task, agentOf(task.contextId).chunkStream(runs.at(-1)!.id), { deltas: false, ended: ended(request.id) });
    },

    async createTaskPushNotificationConfig(request) {
      await requireRuns(request.taskId);
      return toPushConfig(await pushConfigs.set(request.taskId, request));
    },

    async getTaskPushNotificationConfig(request) {
      await requireRuns(request.taskId);
      return toPushConfig(await pushConfigs.require(request.taskId, request.id));
    },

    async listTaskPushNotificationConfigs(request) {
      await requireRuns(request.taskId);
      return { configs: (await pushConfigs.list(request.taskId)).map(toPushConfig), nextPageToken: "" };
    },

    async deleteTaskPushNotificationConfig(request) {
      await requireRuns(request.taskId);
      await pushConfigs.remove(await pushConfigs.require(request.taskId, request.id));
    },
  };
}
