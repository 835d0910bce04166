import { type Agent, type PendingInterrupt, type PlainMessage, messagesOfRun, pendingInterrupts, toPlainMessage } from "@axiom-lattice/agent";
import type { PendingMessage, RunStatus } from "@axiom-lattice/protocols";
import { type Artifact, type Message, type Part, Role, type Task, type TaskStatus, TaskState } from "@a2a-js/sdk";
import type { BaseMessage } from "@langchain/core/messages";

/** A thread's checkpointed state, as its agent reads it. */
export type ThreadSnapshot = Awaited<ReturnType<Agent["stateSnapshot"]>>;

/** The id of a task's one artifact, the answer: a streamed delta and the final answer name the same one. */
export const ANSWER_ARTIFACT_ID = "answer";

const STATE_OF_RUN: Record<RunStatus, TaskState> = {
  pending: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  success: TaskState.TASK_STATE_COMPLETED,
  error: TaskState.TASK_STATE_FAILED,
  aborted: TaskState.TASK_STATE_CANCELED,
  interrupted: TaskState.TASK_STATE_INPUT_REQUIRED,
};

export const taskStateOf = (run: PendingMessage): TaskState => STATE_OF_RUN[run.runStatus];

/** States after which a task takes nothing more: no input, no cancel, no subscription. */
export const isTerminal = (state: TaskState): boolean =>
  state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED;

export const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" });

const dataPart = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" });

export function agentMessage(ids: { contextId: string; taskId: string; messageId: string }, parts: Part[]): Message {
  return { ...ids, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export const answerArtifact = (text: string): Artifact => ({ artifactId: ANSWER_ARTIFACT_ID, name: "answer", description: "", parts: [textPart(text)], metadata: undefined, extensions: [] });

/** What a task's reader asks of it. `historyLength`: the last that many messages (absent: all; 0: none). */
export interface TaskViewOptions {
  historyLength?: number;
  includeArtifacts?: boolean;
}

/** An interrupt's question as parts: a string as text, anything else as data. */
const interruptParts = (interrupts: readonly PendingInterrupt[]): Part[] =>
  interrupts.map(({ value }) => (typeof value === "string" ? textPart(value) : dataPart(value)));

const conversational = (message: PlainMessage) => (message.type === "human" || message.type === "ai") && message.content !== "";

/** The text of the last answer among `messages`, if any. */
const lastAnswer = (messages: readonly PlainMessage[]) => messages.filter((message) => message.type === "ai" && message.content !== "").at(-1)?.content;

/**
 * A task as A2A shows it, read from its runs (first to current) and its thread's state: the current
 * run's status, the conversation of all its runs as history, and, once it completed, the answer as
 * its artifact. A deployed graph records no run boundaries in its state: its thread's last answer
 * stands for the task's.
 */
export function toTask(runs: readonly PendingMessage[], state: ThreadSnapshot, options: TaskViewOptions = {}): Task {
  const first = runs[0];
  const current = runs.at(-1)!;
  const ids = { contextId: first.threadId, taskId: first.id };
  const values = state.values as { messages?: BaseMessage[] };
  const ofRuns = runs.map((run) => messagesOfRun(state.values as Parameters<typeof messagesOfRun>[0], run.id).map(toPlainMessage));
  const history = ofRuns.flatMap((messages, index) =>
    messages.filter(conversational).map((message, at) => ({
      ...ids,
      messageId: message.id ?? `${runs[index].id}-${at}`,
      role: message.type === "human" ? Role.ROLE_USER : Role.ROLE_AGENT,
      parts: [textPart(message.content)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    })),
  );
  const now = taskStateOf(current);
  const status: TaskStatus = { state: now, message: undefined, timestamp: (current.finishedAt ?? current.startedAt ?? current.createdAt).toISOString() };
  if (now === TaskState.TASK_STATE_INPUT_REQUIRED) status.message = agentMessage({ ...ids, messageId: `${current.id}-input` }, interruptParts(pendingInterrupts(state)));
  if (now === TaskState.TASK_STATE_FAILED) status.message = agentMessage({ ...ids, messageId: `${current.id}-error` }, [textPart(current.error ?? "The task failed")]);
  const artifacts: Artifact[] = [];
  if (now === TaskState.TASK_STATE_COMPLETED && options.includeArtifacts !== false) {
    const answer = lastAnswer(ofRuns.at(-1)!) ?? (ofRuns.every((messages) => messages.length === 0) ? lastAnswer((values.messages ?? []).map(toPlainMessage)) : undefined);
    if (answer !== undefined) artifacts.push(answerArtifact(answer));
  }
  const { historyLength } = options;
  return { id: first.id, contextId: first.threadId, status, artifacts, history: historyLength === undefined ? history : historyLength === 0 ? [] : history.slice(-historyLength), metadata: undefined };
}
