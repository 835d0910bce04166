import type { BaseMessage } from "@langchain/core/messages";
import { Annotation, MessagesAnnotation } from "@langchain/langgraph";

/** Where one run (a queued message or resume command, by its queue id) began in the thread's messages. */
export interface RunStart {
  runId: string;
  /** How many messages the thread held when the run began. */
  at: number;
}

/**
 * The thread's state: its messages, and where each run began. A thread's runs never overlap and only
 * append messages, so a run's messages are those from its start to the next run's start. The start is
 * written with the run's input, in the same checkpoint, so it is there on whichever replica runs or
 * later reads the thread (a thread checkpointed before this channel existed simply has none).
 */
export const ThreadStateAnnotation = Annotation.Root({
  ...MessagesAnnotation.spec,
  runStarts: Annotation<RunStart[]>({
    reducer: (recorded, added) => [...recorded, ...added],
    default: () => [],
  }),
});

export type ThreadGraphState = typeof ThreadStateAnnotation.State;

/** The state update that records a run beginning now, unless an earlier attempt of it did. */
export function recordRunStart(state: Partial<ThreadGraphState>, runId: string): { runStarts: RunStart[] } {
  const starts = state.runStarts ?? [];
  return { runStarts: starts.some((start) => start.runId === runId) ? [] : [{ runId, at: state.messages?.length ?? 0 }] };
}

/** The messages `runId` added to the thread (empty for a run that began before starts were recorded). */
export function messagesOfRun(state: Partial<ThreadGraphState>, runId: string): BaseMessage[] {
  const starts = state.runStarts ?? [];
  const messages = state.messages ?? [];
  const index = starts.findIndex((start) => start.runId === runId);
  if (index < 0) return [];
  return messages.slice(starts[index].at, starts[index + 1]?.at ?? messages.length);
}
