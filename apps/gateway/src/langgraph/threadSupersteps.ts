import { AGENT_NODE, REACT_GRAPH_ID, TOOLS_NODE } from "@axiom-lattice/agent";
import { boundedJson } from "@axiom-lattice/core";
import type { Thread } from "@axiom-lattice/protocols";
import { z } from "zod";
import type { LanggraphServices } from "./langgraphServices";
import { threadGraphId } from "./graphAssistants";
import { HttpError } from "../http/errors";
import { threadScope } from "../shared/lookups";
import { checkReactMessages } from "./messageInput";

/** What a state update may write: the graph's channels (the ReAct graph's one, `messages`, in any form LangChain reads). */
export const stateValues = boundedJson(z.record(z.string().max(256), z.unknown()));

/** A node a state update may be written as (the ReAct graph's: agent or tools). */
export const stateUpdateNode = z.string().min(1).max(128);

const REACT_NODES: readonly string[] = [AGENT_NODE, TOOLS_NODE];

/**
 * Refuses, before anything is written, an update the ReAct graph could not take: values other than
 * `messages` LangChain reads, or a node it does not have. A deployed graph checks its own, when it
 * writes; a thread of no known graph, on a gateway serving deployed ones, is left to the runtime.
 */
export function checkStateUpdate(graphId: string | undefined, values: Record<string, unknown>, asNode: string | undefined, where = ""): void {
  if (graphId !== REACT_GRAPH_ID) return;
  checkReactMessages(`${where}values`, values);
  if (asNode !== undefined && !REACT_NODES.includes(asNode)) throw new HttpError("INVALID_REQUEST", `${where}as_node: the graph has no node ${asNode} (it has ${REACT_NODES.join(", ")})`);
}

const superstepUpdate = z.strictObject({
  values: stateValues,
  command: z.unknown().nullable().optional().describe("Not supported: refused with NOT_SUPPORTED"),
  as_node: stateUpdateNode.describe("Write as if this node had returned the values"),
});

/** `supersteps` of `POST /threads`: the prior state a thread is created with, as LangGraph Platform takes it. */
export const supersteps = z
  .array(z.strictObject({ updates: z.array(superstepUpdate).min(1).max(100) }))
  .max(100)
  .nullable()
  .optional()
  .describe("Updates written into the new thread's state, in order, as POST /threads/{id}/state writes each (one checkpoint per update)");

export type Supersteps = NonNullable<z.output<typeof supersteps>>;

/** Refuses, before anything is written, supersteps the thread could not be given. */
export function checkSupersteps(steps: Supersteps, graphId: string | undefined): void {
  steps.forEach(({ updates }, step) =>
    updates.forEach((update, index) => {
      if (update.command !== undefined && update.command !== null) {
        throw new HttpError("NOT_SUPPORTED", `supersteps[${step}].updates[${index}].command is not supported by this gateway: give values and as_node`);
      }
      checkStateUpdate(graphId, update.values, update.as_node, `supersteps[${step}].updates[${index}].`);
    }),
  );
}

/**
 * Writes checked `steps` into a new thread's state, each update as `POST /threads/{id}/state` writes
 * one. Should one fail, the thread is deleted with whatever was written: the create wrote nothing.
 */
export async function applySupersteps({ agents }: Pick<LanggraphServices, "agents">, thread: Thread, steps: Supersteps): Promise<void> {
  const scope = threadScope(thread);
  try {
    for (const { updates } of steps) {
      for (const { values, as_node } of updates) await agents.updateThreadState(scope, { values, asNode: as_node, graphId: threadGraphId(thread) });
    }
  } catch (error) {
    await agents.deleteThread(scope);
    throw error;
  }
}
