import { type Agent, type AgentInstanceManager, REACT_GRAPH_ID, type StreamChunk } from "@axiom-lattice/agent";
import { randomUUID } from "node:crypto";
import { EgressRefusedError, checkEgressUrl } from "@axiom-lattice/core";
import { type A2aPushConfig, type A2aWireVersion, type Assistant, MessageChunkTypes, type PendingMessage, type QueueScope, type Thread, endsChunkStream } from "@axiom-lattice/protocols";
import type { AgentCard, ListTasksRequest, ListTasksResponse, SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig, TaskStatus } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { GatewayConfig } from "../config";
import type { GatewayStores } from "../stores/gatewayStores";
import { MAX_TASK_INPUTS, continuationId, isTaskId, taskRuns } from "./taskRuns";
import { type TaskViewOptions, answerArtifact, isTerminal, taskStateOf, toTask } from "./taskView";
import { clientId, userInput } from "./userInput";

/** What the A2A operations run on: the engine's stores and runtime, and the tenants' queue bound. */
export interface A2aEngine {
  stores: Pick<GatewayStores, "threads" | "queue" | "a2aPushConfigs">;
  agents: AgentInstanceManager;
  config: Pick<GatewayConfig, "tenantLimits" | "upstream">;
}

/** How many push-notification configurations one task takes. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

/** How many of an assistant's contexts, the latest used, `ListTasks` without a `contextId` looks in. */
export const LISTED_CONTEXTS = 50;
/** How many ended tasks of one context `ListTasks` looks at: its latest. */
const LISTED_RUNS_PER_CONTEXT = 100;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** A stored configuration as A2A shows it. */
const toPushConfig = (config: A2aPushConfig): TaskPushNotificationConfig => ({
  tenant: "",
  id: config.id,
  taskId: config.taskId,
  url: config.url,
  token: config.token ?? "",
  authentication: config.authentication && { scheme: config.authentication.scheme, credentials: config.authentication.credentials ?? "" },
});

const stateName = (state: TaskState) => TaskState[state].replace("TASK_STATE_", "").toLowerCase().replace("_", "-");

/** A task's runs could not be told apart from a state the client should wait on. */
const isDuplicate = (error: unknown) => (error as { code?: unknown } | null)?.code === "DUPLICATE_MESSAGE";

/**
 * The A2A operations on one assistant of one tenant, as the SDK's JSON-RPC handlers call them: a
 * context is one of the assistant's threads, a task one of its runs (and the runs that answer its
 * interrupts, see `taskRuns`). Everything is read from the shared stores and followed through the
 * runtime, so a task started on one replica is read, streamed, subscribed to and cancelled from any.
 */
export function assistantTasks({ stores, agents, config }: A2aEngine, tenantId: string, assistant: Assistant, card: AgentCard, version: A2aWireVersion): A2ARequestHandler {
  const scope: QueueScope = { tenantId, assistantId: assistant.id };
  const agentOf = (threadId: string): Agent => agents.getAgent({ tenantId, assistantId: assistant.id, threadId });
  const { maxQueuedMessages } = config.tenantLimits;

  const readTask = async (taskId: string, options: TaskViewOptions = {}): Promise<{ runs: PendingMessage[]; task: Task }> => {
    const runs = await requireRuns(taskId);
    const state = await agentOf(runs[0].threadId).stateSnapshot();
    return { runs, task: toTask(runs, state, options) };
  };

  const requireRuns = async (taskId: string): Promise<PendingMessage[]> => {
    const runs = await taskRuns(stores.queue, scope, taskId);
    if (!runs) throw new TaskNotFoundError(`Task ${taskId} not found`);
    return runs;
  };

  /**
   * Sets where a task's stops are told, once its URL passed the egress policy (checked again on every
   * call), within {@link MAX_PUSH_CONFIGS_PER_TASK}. Its id is the client's, or the task's.
   */
  const setPushConfig = async (taskId: string, requested: TaskPushNotificationConfig): Promise<A2aPushConfig> => {
    const id = clientId("id", requested.id) ?? taskId;
    if (requested.url === "") throw new RequestMalformedError("url is required: where the notifications are sent");
    try {
      await checkEgressUrl(requested.url, config.upstream.egress);
    } catch (error) {
      if (error instanceof EgressRefusedError) throw new RequestMalformedError(`url: ${error.message}`);
      throw error;
    }
    const existing = await stores.a2aPushConfigs.list(tenantId, taskId);
    if (existing.length >= MAX_PUSH_CONFIGS_PER_TASK && !existing.some((each) => each.id === id)) {
      throw new RequestMalformedError(`Task ${taskId} has ${MAX_PUSH_CONFIGS_PER_TASK} push notification configurations, the most it takes`);
    }
    const { scheme = "", credentials = "" } = requested.authentication ?? {};
    return stores.a2aPushConfigs.put({
      tenantId,
      taskId,
      id,
      url: requested.url,
      wireVersion: version,
      ...(requested.token === "" ? {} : { token: requested.token }),
      ...(scheme === "" ? {} : { authentication: { scheme, ...(credentials === "" ? {} : { credentials }) } }),
    });
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

  /**
   * Queues the message's run: a new task, or the answer to the interrupt the task named waits on
   * (its next run). Anything else sent to an existing task is refused, nothing queued.
   */
  const startTask = async ({ message, configuration }: SendMessageRequest): Promise<{ agent: Agent; taskId: string; runId: string }> => {
    const text = userInput(message);
    const push = configuration?.taskPushNotificationConfig;
    const taskId = clientId("params.message.taskId", message!.taskId);
    const contextId = clientId("params.message.contextId", message!.contextId);
    const queueOptions = { tenantQueueLimit: maxQueuedMessages > 0 ? maxQueuedMessages : undefined };
    if (taskId === undefined) {
      const thread = await contextFor(contextId);
      const agent = agentOf(thread.id);
      // The built-in graph takes a message; a deployed graph reads its input as LangGraph clients send it.
      const input = assistant.graph === REACT_GRAPH_ID ? { message: text } : { input: { messages: [{ role: "user", content: text }] } };
      // The task's id is chosen first, so that its push configuration is there before it can end.
      const newTaskId = randomUUID();
      if (push) await setPushConfig(newTaskId, push);
      try {
        await agent.addMessage(input, { ...queueOptions, messageId: newTaskId });
      } catch (error) {
        if (push) await stores.a2aPushConfigs.delete(tenantId, newTaskId, push.id === "" ? newTaskId : push.id);
        throw error;
      }
      return { agent, taskId: newTaskId, runId: newTaskId };
    }
    const runs = await requireRuns(taskId);
    if (contextId !== undefined && contextId !== runs[0].threadId) throw new RequestMalformedError(`Task ${taskId} is in context ${runs[0].threadId}, not ${contextId}`);
    const state = taskStateOf(runs.at(-1)!);
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError(`Task ${taskId} is ${stateName(state)}: only a task in input-required takes another message${isTerminal(state) ? "" : " (wait for it, or subscribe to it)"}`);
    }
    if (runs.length > MAX_TASK_INPUTS) throw new UnsupportedOperationError(`Task ${taskId} took its ${MAX_TASK_INPUTS} inputs: start a new task in its context`);
    if (push) await setPushConfig(taskId, push);
    const agent = agentOf(runs[0].threadId);
    try {
      const { messageId } = await agent.addMessage({}, { ...queueOptions, messageId: continuationId(taskId, runs.length), command: { resume: text } });
      return { agent, taskId, runId: messageId };
    } catch (error) {
      if (isDuplicate(error)) throw new UnsupportedOperationError(`Task ${taskId} was answered by another message just now`);
      throw error;
    }
  };

  const statusUpdate = (task: Task, status: TaskStatus): StreamResponse => ({
    payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status, metadata: undefined } },
  });

  /**
   * Follows a task's current run to its end, wherever it runs: `working` once it starts, the answer's
   * text as it is streamed (with `deltas`), then the answer whole and the task's final status, read
   * from the stores once the run ended. Chunks that stop before the end (this replica closing) end
   * the stream without it: the client subscribes again, on a replica that stays.
   */
  async function* followTask(task: Task, chunks: AsyncIterable<StreamChunk>, deltas: boolean): AsyncGenerator<StreamResponse> {
    let working = task.status?.state === TaskState.TASK_STATE_WORKING;
    for await (const chunk of chunks) {
      if (endsChunkStream(chunk)) {
        const { task: ended } = await readTask(task.id);
        for (const artifact of ended.artifacts) {
          yield { payload: { $case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined } } };
        }
        yield statusUpdate(ended, ended.status!);
        return;
      }
      if (!working) {
        working = true;
        yield statusUpdate(task, { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() });
      }
      const text = chunk.type === MessageChunkTypes.MESSAGE_CHUNK ? (chunk.data as { content?: unknown }).content : undefined;
      if (deltas && typeof text === "string" && text !== "") {
        yield { payload: { $case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact: answerArtifact(text), append: true, lastChunk: false, metadata: undefined } } };
      }
    }
  }

  /** The tasks of one context: each first run with the runs that continue it, newest first. */
  const contextTasks = async (thread: Thread, options: TaskViewOptions): Promise<Task[]> => {
    const ref = { ...scope, threadId: thread.id };
    // Running ones first: one that ends between the reads is then found ended, never missed.
    const [pending, processing] = await Promise.all([stores.queue.getPendingMessages(ref), stores.queue.getProcessingMessages(ref)]);
    const ended = await stores.queue.latestRuns(ref, { limit: LISTED_RUNS_PER_CONTEXT });
    const byId = new Map([...pending, ...processing, ...ended].map((run) => [run.id, run]));
    const chains = [...byId.values()]
      .filter((run) => isTaskId(run.id))
      .map((first) => {
        const chain = [first];
        for (let next = byId.get(continuationId(first.id, 1)); next; next = byId.get(continuationId(first.id, chain.length))) chain.push(next);
        return chain;
      });
    if (chains.length === 0) return [];
    const state = await agentOf(thread.id).stateSnapshot();
    return chains.map((chain) => toTask(chain, state, options));
  };

  const listTasks = async (request: ListTasksRequest): Promise<ListTasksResponse> => {
    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new RequestMalformedError(`pageSize must be 1 to ${MAX_PAGE_SIZE}`);
    const offset = request.pageToken === "" ? 0 : Number(request.pageToken);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RequestMalformedError("pageToken must be one a ListTasks answer gave");
    const after = request.statusTimestampAfter === undefined ? undefined : Date.parse(request.statusTimestampAfter);
    if (after !== undefined && Number.isNaN(after)) throw new RequestMalformedError("statusTimestampAfter must be a timestamp");
    const contextId = clientId("contextId", request.contextId);
    const threads =
      contextId === undefined
        ? await stores.threads.searchThreads(tenantId, { assistantId: assistant.id, sortBy: "updatedAt", limit: LISTED_CONTEXTS })
        : [await stores.threads.getThread(tenantId, contextId)].filter((thread): thread is Thread => thread?.assistantId === assistant.id);
    const options = { historyLength: request.historyLength, includeArtifacts: request.includeArtifacts ?? false };
    const tasks = (await Promise.all(threads.map((thread) => contextTasks(thread, options))))
      .flat()
      .filter((task) => request.status === TaskState.TASK_STATE_UNSPECIFIED || task.status?.state === request.status)
      .filter((task) => after === undefined || Date.parse(task.status!.timestamp!) > after)
      .sort((a, b) => Date.parse(b.status!.timestamp!) - Date.parse(a.status!.timestamp!) || (a.id < b.id ? -1 : 1));
    const page = tasks.slice(offset, offset + pageSize);
    return { tasks: page, nextPageToken: offset + pageSize < tasks.length ? String(offset + pageSize) : "", pageSize: page.length, totalSize: tasks.length };
  };

  /** A configuration of a task, which must exist (a missing one is "task not found", as A2A's SDK answers it). */
  const requirePushConfig = async (taskId: string, id: string): Promise<A2aPushConfig> => {
    await requireRuns(taskId);
    const found = await stores.a2aPushConfigs.get(tenantId, taskId, id === "" ? taskId : id);
    if (!found) throw new TaskNotFoundError(`Task ${taskId} has no push notification configuration ${id}`);
    return found;
  };

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
      yield* followTask(task, agent.chunkStream(runId), true);
    },

    async getTask(request) {
      return (await readTask(request.id, { historyLength: request.historyLength })).task;
    },

    listTasks,

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
      yield* followTask(task, agentOf(task.contextId).chunkStream(runs.at(-1)!.id), false);
    },

    async createTaskPushNotificationConfig(request) {
      await requireRuns(request.taskId);
      return toPushConfig(await setPushConfig(request.taskId, request));
    },

    async getTaskPushNotificationConfig(request) {
      return toPushConfig(await requirePushConfig(request.taskId, request.id));
    },

    async listTaskPushNotificationConfigs(request) {
      await requireRuns(request.taskId);
      return { configs: (await stores.a2aPushConfigs.list(tenantId, request.taskId)).map(toPushConfig), nextPageToken: "" };
    },

    async deleteTaskPushNotificationConfig(request) {
      const found = await requirePushConfig(request.taskId, request.id);
      await stores.a2aPushConfigs.delete(tenantId, found.taskId, found.id);
    },
  };
}
