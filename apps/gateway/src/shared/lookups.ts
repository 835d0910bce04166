import type { ThreadRunScope } from "@axiom-lattice/core";
import { ANY_ASSISTANT, type Assistant, type Thread } from "@axiom-lattice/protocols";
import { type Principal, mayUseAssistant } from "../auth/principal";
import { HttpError } from "../http/errors";
import type { GatewayStores } from "../stores/gatewayStores";

// Another tenant's records answer exactly like missing ones: existence is not disclosed. So do the
// assistants a credential is restricted away from (an API key's `assistant_ids`), and their threads:
// a 404 tells a restricted key nothing a missing id would not, where a 403 would confirm the id exists.

/**
 * Who a lookup is for: the request's principal (its tenant, and its assistants when restricted), or
 * a tenant id alone when the gateway looks up for itself or for a credential without restriction.
 */
export type Requester = string | Principal;

const tenantOf = (who: Requester) => (typeof who === "string" ? who : who.tenantId);
const mayUse = (who: Requester, assistantId: string) => typeof who === "string" || mayUseAssistant(who, assistantId);
const mayUseOwnedBy = (who: Requester, assistantId: string | undefined) => assistantId === undefined || mayUse(who, assistantId);

/** Refuses, as missing, an assistant `who` may not use, whether or not it exists. */
export function requireUsable(who: Requester, assistantId: string, notFound = () => new HttpError("NOT_FOUND", `Assistant ${assistantId} not found`)): void {
  if (!mayUse(who, assistantId)) throw notFound();
}

/**
 * Refuses to create an assistant `who` could not use (403: nothing of any existing one is disclosed):
 * a restricted credential creates only the assistants it names, under an id given in advance.
 */
export function requireCreatable(who: Requester, assistantId: string | undefined): void {
  if (typeof who === "string" || who.assistantIds === undefined) return;
  if (assistantId === undefined || !mayUse(who, assistantId)) {
    throw new HttpError("FORBIDDEN", "A credential restricted to some assistants creates only those, by their id");
  }
}

/**
 * What of `items` (assistants, or records of one) `who` may use: a restricted credential's list holds
 * only its assistants'. An item of no assistant (`undefined`) is everyone's.
 */
export function usableOnly<T>(who: Requester, items: T[], assistantIdOf: (item: T) => string | undefined): T[] {
  return items.filter((item) => mayUseOwnedBy(who, assistantIdOf(item)));
}

/**
 * The assistant a thread is of: its own (`/api`), or, for a LangGraph thread (open to any assistant),
 * the one its last run used, as the run labelled it; none for a LangGraph thread no run used yet.
 */
export function threadAssistantOf(thread: Thread): string | undefined {
  if (thread.assistantId !== ANY_ASSISTANT) return thread.assistantId;
  const labelled = thread.metadata.assistant_id;
  return typeof labelled === "string" ? labelled : undefined;
}

/** Whether `who` may use the thread: a thread of no assistant yet is usable by any credential of its tenant. */
export const mayUseThread = (who: Requester, thread: Thread): boolean => mayUseOwnedBy(who, threadAssistantOf(thread));

export async function requireAssistant({ stores }: { stores: Pick<GatewayStores, "assistants"> }, who: Requester, id: string): Promise<Assistant> {
  requireUsable(who, id);
  const assistant = await stores.assistants.getAssistant(tenantOf(who), id);
  if (!assistant) throw new HttpError("NOT_FOUND", `Assistant ${id} not found`);
  return assistant;
}

/**
 * The thread a run request names, of the assistant it names, refused as {@link requireAssistant} and
 * {@link requireThread} would refuse them (the assistant first); one read of both.
 */
export async function requireRunTarget({ stores }: { stores: Pick<GatewayStores, "runTargets"> }, who: Requester, assistantId: string, threadId: string): Promise<Thread> {
  requireUsable(who, assistantId);
  const { assistantFound, thread } = await stores.runTargets.findRunTarget(tenantOf(who), assistantId, threadId);
  if (!assistantFound) throw new HttpError("NOT_FOUND", `Assistant ${assistantId} not found`);
  return usableThread(who, thread, threadId, assistantId);
}

/**
 * The scope of a run request that queues with `requireTarget`, which judges the assistant and its
 * thread as {@link requireRunTarget} would, in the add itself: only what needs no read is judged here.
 */
export function runTargetScope(who: Requester, assistantId: string, threadId: string): ThreadRunScope {
  requireUsable(who, assistantId);
  return { tenantId: tenantOf(who), assistantId, threadId };
}

export async function requireThread({ stores }: { stores: Pick<GatewayStores, "threads"> }, who: Requester, id: string, assistantId?: string): Promise<Thread> {
  return usableThread(who, await stores.threads.getThread(tenantOf(who), id), id, assistantId);
}

function usableThread(who: Requester, thread: Thread | null, id: string, assistantId?: string): Thread {
  if (!thread || (assistantId !== undefined && thread.assistantId !== assistantId) || !mayUseThread(who, thread)) {
    throw new HttpError("NOT_FOUND", `Thread ${id} not found${assistantId ? ` for assistant ${assistantId}` : ""}`);
  }
  return thread;
}

export function threadScope(thread: Thread): ThreadRunScope {
  return { tenantId: thread.tenantId, assistantId: thread.assistantId, threadId: thread.id };
}
