import { RecordExistsError, type ThreadRunScope } from "@axiom-lattice/core";
import { type AssistantStore, type TaskItem, TaskStatus } from "@axiom-lattice/protocols";
import { type ToolRunnableConfig, tool } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import { createHash } from "node:crypto";
import { z } from "zod";
import { type TaskMessageDeps, startTaskRun } from "./taskMessages";
import type { TaskRuntimeOptions } from "./taskRuntimeDeps";
import { TASK_TOOL } from "./taskToolName";
import { TASK_CALLER_KEY, TASK_RUN_KEY, type TaskRunRef, callerEntry, placeEntry, taskThreadId } from "./taskRunPlace";

/**
 * What the `task` tool uses of its runtime: the tasks and the assistants to delegate to, and the
 * queue that starts the task's run. The runtime's context is one.
 */
export interface TaskToolDeps extends TaskMessageDeps {
  assistants: Pick<AssistantStore, "getAssistant">;
  /** Absent: tasks are not configured, and the tool refuses to delegate. */
  tasks?: Pick<TaskRuntimeOptions, "store">;
}

/** What the caller's run waits on while a delegated task runs (the interrupt's value). */
export interface DelegatedTaskWait {
  type: "task";
  taskId: string;
  assistantId: string;
  title: string;
}

export interface TaskToolScope {
  /** The calling run's thread: it is resumed with the task's outcome. */
  caller: ThreadRunScope;
  /**
   * The task run the calling run is, if it is one: the parent of the tasks it delegates, resumed (as
   * the task's current run) with their outcomes.
   */
  callerRun?: TaskRunRef;
}

const TITLE_LENGTH = 80;

/**
 * The id of the task one tool call delegates: the same on every execution of that call (a resumed or
 * re-run graph executes its tool calls again), so the call creates and starts one task, wherever it
 * runs.
 */
export function delegatedTaskId({ tenantId, assistantId, threadId }: ThreadRunScope, toolCallId: string): string {
  const digest = createHash("sha256").update(JSON.stringify([tenantId, assistantId, threadId, toolCallId])).digest("hex");
  return `delegated-${digest.slice(0, 32)}`;
}

/** The `configurable` key under which a run tells its graph's `task` tool who calls it ({@link TaskToolScope}). */
const TASK_TOOL_CALLER = "__lattice_task_caller";

/** The run's part of its graph's config that the `task` tool reads: the caller, as the run knows it. */
export function taskToolConfigurable(scope: TaskToolScope): Record<string, unknown> {
  return { [TASK_TOOL_CALLER]: scope };
}

const TASK_TOOL_SCHEMA = z.object({
  assistant: z.string().min(1).describe("The id of the assistant that should do the task"),
  description: z.string().min(1).describe("What the assistant should do"),
  title: z.string().min(1).optional().describe("A short title; default: the start of the description"),
});

/**
 * The `task` tool: delegates work to another assistant of the tenant. It creates a task owned by that
 * assistant, starts its run on the task's own thread (through the queue, so any replica may run it),
 * and interrupts the calling run, which the task's settlement resumes with its outcome (`completed`,
 * `failed`, `review`, `interrupted` or `cancelled`); that outcome is the tool's result.
 *
 * The calling run is read from the run's config ({@link taskToolConfigurable}), not captured: one tool
 * (and one compiled graph holding it) serves every run of the runtime.
 */
export function createTaskTool(context: TaskToolDeps) {
  return tool(
    async ({ assistant, description, title }, config: ToolRunnableConfig) => {
      const toolCallId = config.toolCall?.id;
      if (!toolCallId) throw new Error("The task tool must be called through a tool call");
      const scope = config.configurable?.[TASK_TOOL_CALLER] as TaskToolScope | undefined;
      if (!scope) throw new Error("The task tool must be called from a run of a thread");
      const task = await delegatedTask(context, scope, toolCallId, { assistant, description, title });
      if (task.status === TaskStatus.IN_PROGRESS) await startTaskRun(context, task);
      const wait: DelegatedTaskWait = { type: "task", taskId: task.id, assistantId: task.ownerId, title: task.title };
      return JSON.stringify(interrupt(wait));
    },
    { name: TASK_TOOL, description: "Delegate a task to another assistant and wait for its outcome.", schema: TASK_TOOL_SCHEMA },
  );
}

/** The task of this tool call: created (already `in_progress`, placed on its run thread) the first time. */
async function delegatedTask(
  context: TaskToolDeps,
  { caller, callerRun }: TaskToolScope,
  toolCallId: string,
  request: { assistant: string; description: string; title?: string },
): Promise<TaskItem> {
  const store = context.tasks?.store;
  if (!store) throw new Error("Tasks are not configured on this runtime");
  const { tenantId } = caller;
  const id = delegatedTaskId(caller, toolCallId);
  const existing = await store.getTask(tenantId, id);
  if (existing) return existing;
  if (!(await context.assistants.getAssistant(tenantId, request.assistant))) {
    throw new Error(`No assistant "${request.assistant}" to delegate to`);
  }
  const run: ThreadRunScope = { tenantId, assistantId: request.assistant, threadId: taskThreadId(id) };
  try {
    return await store.createTask(tenantId, {
      id,
      ownerType: "agent",
      ownerId: request.assistant,
      title: request.title ?? request.description.slice(0, TITLE_LENGTH),
      description: request.description,
      priority: 0,
      status: TaskStatus.IN_PROGRESS,
      ...(callerRun ? { parentId: callerRun.taskId } : {}),
      context: { [TASK_CALLER_KEY]: callerEntry(caller, callerRun), [TASK_RUN_KEY]: placeEntry(run) },
    });
  } catch (error) {
    // The same call, re-run on a peer at the same moment, created it first.
    if (!(error instanceof RecordExistsError)) throw error;
    const created = await store.getTask(tenantId, id);
    if (!created) throw error;
    return created;
  }
}
