import { type Agent, type RunResult, clientStateValues } from "@axiom-lattice/agent";
import type { FinishedRunStatus } from "@axiom-lattice/protocols";

/** A run's failure as LangGraph streams and `wait` answers carry it: `{ error, message }`. */
export interface RunError {
  /** The failure's stable code when it has one (`UPSTREAM_TIMEOUT`, …), else what ended it. */
  error: string;
  message: string;
}

// A failure with a stable code reads `<CODE>: <message>` (see RUN_ERROR_DESCRIPTION).
const LEADING_CODE = /^([A-Z][A-Z_]+):/;

// A deployed graph's failure reads `<ErrorName>: <message>` (see `graphFailureText`): named as its class.
const ERROR_NAME = /^([A-Z][A-Za-z0-9]*(?:Error|Exception)): ([\s\S]*)$/;

export function runErrorOf(status: FinishedRunStatus, message = "", code?: string): RunError {
  const named = code === undefined ? ERROR_NAME.exec(message) : null;
  if (named) return { error: named[1], message: named[2] };
  return { error: code ?? LEADING_CODE.exec(message)?.[1] ?? (status === "aborted" ? "Interrupted" : "Error"), message };
}

/**
 * What `wait` and `join` answer once a run ended: the thread's values, with `__interrupt__` when it
 * waits on an interrupt, or `__error__` when the run failed or was stopped (LangGraph's shapes).
 */
export async function runOutcomeValues(agent: Agent, result: RunResult): Promise<Record<string, unknown>> {
  if (result.status === "error" || result.status === "aborted") return { __error__: runErrorOf(result.status, result.error) };
  const values = clientStateValues((await agent.stateSnapshot()).values as Record<string, unknown>);
  return result.status === "interrupted" ? { ...values, __interrupt__: result.interrupts ?? [] } : values;
}
