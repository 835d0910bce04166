import type { ThreadGraphState } from "./runBoundaries";

/**
 * A graph value as LangGraph clients read it, plain JSON: each message as its dict (`{ content,
 * id, type, tool_calls, … }`, as the LangGraph API serves messages) instead of LangChain's
 * constructor form.
 */
export function toClientJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key, replaced: unknown) {
    // `this[key]` is the value before its own toJSON ran: a message's toJSON gives the constructor form.
    const raw = this[key] as { toDict?: () => { type: string; data: Record<string, unknown> } } | null | undefined;
    if (raw !== null && typeof raw === "object" && typeof raw.toDict === "function") {
      const { type, data } = raw.toDict();
      return { ...data, type };
    }
    return replaced;
  });
  return JSON.parse(json) as unknown;
}

/**
 * A thread's state values as clients read them: its messages, without the runtime's own channel
 * (`runStarts`, where each run began), which is bookkeeping, not conversation.
 */
export function clientStateValues(values: Partial<ThreadGraphState> & Record<string, unknown>): Record<string, unknown> {
  const { runStarts: _bookkeeping, ...conversation } = values;
  return toClientJson(conversation) as Record<string, unknown>;
}
