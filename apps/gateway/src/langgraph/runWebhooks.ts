import { type AgentInstanceManager, type CompletedRun, clientStateValues } from "@axiom-lattice/agent";
import { type EgressPolicy, type Logger, egressFetch } from "@axiom-lattice/core";
import type { ThreadStore } from "@axiom-lattice/protocols";
import { isOwnPath, loopbackUrl } from "../graphs/loopback";
import { runErrorOf } from "./runOutcome";
import type { RunAnnotations } from "./runRequest";
import { toRunView } from "./runView";

/** How long a webhook's receiver may take to answer. */
const WEBHOOK_TIMEOUT_MS = 10_000;

export interface RunWebhookDeps {
  agents: () => AgentInstanceManager;
  threads: ThreadStore;
  egress: EgressPolicy;
  logger: Logger;
}

/**
 * Calls the `webhook` of a LangGraph run once it ended, as LangGraph Platform does: a POST of the run
 * (as `GET …/runs/{run_id}` reads it, with its final status), the thread's values, `error` when it
 * failed, and when it was sent. Sent by the replica that recorded the run's outcome, right after: once
 * (a replica dying in between sends none), through the egress policy every tenant URL is held to.
 */
export function runWebhooks({ agents, threads, egress, logger }: RunWebhookDeps): (run: CompletedRun) => void {
  const post = egressFetch(egress);

  const deliver = async ({ scope, message, status, error }: CompletedRun, webhook: string) => {
    const thread = await threads.getThread(scope.tenantId, scope.threadId);
    if (!thread) return;
    const { values } = await agents().getAgent(scope).stateSnapshot();
    const endedAt = new Date();
    const payload = {
      ...toRunView({ ...message, runStatus: status, finishedAt: endedAt }, thread),
      run_started_at: (message.startedAt ?? message.createdAt).toISOString(),
      run_ended_at: endedAt.toISOString(),
      webhook_sent_at: new Date().toISOString(),
      values: clientStateValues(values as Record<string, unknown>),
      ...(status === "error" || status === "aborted" ? { error: runErrorOf(status, error).message } : {}),
    };
    const request = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    };
    // A path is the gateway's own (the operator's routes, say): called at its own address, not a tenant's URL.
    const response = isOwnPath(webhook) ? await fetch(new URL(webhook, loopbackUrl()), request) : await post(webhook, request);
    await response.body?.cancel();
    if (!response.ok) logger.warn({ runId: message.id, status: response.status }, "a run's webhook answered with an error status");
  };

  return (run) => {
    const webhook = (run.message.content as { annotations?: Partial<RunAnnotations> } | null)?.annotations?.webhook;
    if (typeof webhook !== "string") return;
    deliver(run, webhook).catch((error: unknown) => logger.warn({ err: error, runId: run.message.id }, "a run's webhook could not be called"));
  };
}
