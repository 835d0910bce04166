import type { Agent } from "@axiom-lattice/agent";
import type { QueueScope, Thread } from "@axiom-lattice/protocols";
import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { GatewayStores } from "../stores/gatewayStores";
import { continuationId, isTaskId } from "./taskRuns";
import { type TaskViewOptions, toTask } from "./taskView";
import { clientId } from "./userInput";

/** How many of an assistant's contexts, the latest used, `ListTasks` without a `contextId` looks in. */
export const LISTED_CONTEXTS = 50;
/** How many ended tasks of one context `ListTasks` looks at: its latest. */
const LISTED_RUNS_PER_CONTEXT = 100;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

export interface TaskListingSources {
  stores: Pick<GatewayStores, "threads" | "queue" | "langGraph">;
  /** The assistant's tasks' queue scope. */
  scope: Required<QueueScope>;
  agentOf: (threadId: string) => Agent;
}

/**
 * `ListTasks`: the tasks of a context, or of the assistant's {@link LISTED_CONTEXTS} contexts used
 * last, newest status first, a page at a time (the page token is an offset into that order).
 */
export function taskListing({ stores, scope, agentOf }: TaskListingSources): (request: ListTasksRequest) => Promise<ListTasksResponse> {
  /** The tasks of one context: each first run with the runs that continue it. */
  const contextTasks = async (thread: Thread, options: TaskViewOptions): Promise<Task[]> => {
    const ref = { ...scope, threadId: thread.id };
    // Running ones first: one that ends between the reads is then found ended, never missed.
    const [pending, processing] = await Promise.all([stores.queue.getPendingMessages(ref), stores.queue.getProcessingMessages(ref)]);
    const ended = await stores.langGraph.latestRuns(ref, { limit: LISTED_RUNS_PER_CONTEXT });
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

  return async (request) => {
    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new RequestMalformedError(`pageSize must be 1 to ${MAX_PAGE_SIZE}`);
    const offset = request.pageToken === "" ? 0 : Number(request.pageToken);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RequestMalformedError("pageToken must be one a ListTasks answer gave");
    const after = request.statusTimestampAfter === undefined ? undefined : Date.parse(request.statusTimestampAfter);
    if (after !== undefined && Number.isNaN(after)) throw new RequestMalformedError("statusTimestampAfter must be a timestamp");
    const contextId = clientId("contextId", request.contextId);
    const threads =
      contextId === undefined
        ? await stores.langGraph.searchThreads(scope.tenantId, { assistantId: scope.assistantId, sortBy: "updatedAt", limit: LISTED_CONTEXTS })
        : [await stores.threads.getThread(scope.tenantId, contextId)].filter((thread): thread is Thread => thread?.assistantId === scope.assistantId);
    const options = { historyLength: request.historyLength, includeArtifacts: request.includeArtifacts ?? false };
    const tasks = (await Promise.all(threads.map((thread) => contextTasks(thread, options))))
      .flat()
      .filter((task) => request.status === TaskState.TASK_STATE_UNSPECIFIED || task.status?.state === request.status)
      .filter((task) => after === undefined || Date.parse(task.status!.timestamp!) > after)
      .sort((a, b) => Date.parse(b.status!.timestamp!) - Date.parse(a.status!.timestamp!) || (a.id < b.id ? -1 : 1));
    const page = tasks.slice(offset, offset + pageSize);
    return { tasks: page, nextPageToken: offset + pageSize < tasks.length ? String(offset + pageSize) : "", pageSize: page.length, totalSize: tasks.length };
  };
}
