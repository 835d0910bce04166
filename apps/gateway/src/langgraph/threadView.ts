import { clientStateValues } from "@axiom-lattice/agent";
import type { Thread } from "@axiom-lattice/protocols";
import { z } from "zod";
import type { LanggraphServices } from "./langgraphServices";
import { threadScope } from "../shared/lookups";
import { interruptView, interruptsByTask } from "./stateView";

export const THREAD_STATUSES = ["idle", "busy", "interrupted", "error"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

const jsonObject = z.record(z.string(), z.unknown());

/** A thread as the LangGraph API shows it. */
export const threadView = z.object({
  thread_id: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
  state_updated_at: z.date().describe("When its state was last checkpointed (its creation, before any)"),
  metadata: jsonObject,
  status: z.enum(THREAD_STATUSES).describe("busy: runs queued or running; interrupted: waiting on an interrupt, or paused before or after a node; error: its last run failed; else idle"),
  values: jsonObject,
  interrupts: z.record(z.string(), z.array(interruptView)).describe("The interrupts it waits on, by task id"),
  config: jsonObject.describe("What its runs' configs merged to: the assistant's, then each run's over it"),
  error: z.string().nullable().describe("status error: why its last run failed"),
}).meta({ id: "LangGraphThread" });

export type ThreadView = z.input<typeof threadView>;

/** Whether the thread is `busy` (runs queued or running): read from its queue alone, without its state. */
export async function isThreadBusy({ stores }: Pick<LanggraphServices, "stores">, thread: Thread): Promise<boolean> {
  return (await stores.queue.getQueueSize(threadScope(thread))) > 0;
}

/** A stored thread with its status and state, read now from its queue and its checkpoints. */
export async function toThreadView({ agents, stores }: Pick<LanggraphServices, "agents" | "stores">, thread: Thread): Promise<ThreadView> {
  const scope = threadScope(thread);
  const [queued, snapshot, [lastRun]] = await Promise.all([
    stores.queue.getQueueSize(scope),
    agents.getAgent(scope).stateSnapshot(),
    stores.langGraph.latestRuns(scope, { limit: 1 }),
  ]);
  const interrupts = interruptsByTask(snapshot);
  const failed = lastRun?.runStatus === "error";
  // A run paused before or after a node (`interrupt_before`/`interrupt_after`) waits on no interrupt, but on its next node.
  const paused = Object.keys(interrupts).length > 0 || (lastRun?.runStatus === "interrupted" && snapshot.next.length > 0);
  const status: ThreadStatus = queued > 0 ? "busy" : paused ? "interrupted" : failed ? "error" : "idle";
  return {
    thread_id: thread.id,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    state_updated_at: snapshot.createdAt ? new Date(snapshot.createdAt) : thread.createdAt,
    metadata: thread.metadata,
    status,
    values: clientStateValues(snapshot.values as Record<string, unknown>),
    interrupts,
    config: thread.config ?? {},
    error: status === "error" ? (lastRun?.error ?? null) : null,
  };
}
