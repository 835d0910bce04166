import type { ScheduleHandler } from "@axiom-lattice/core";
import type { Thread } from "@axiom-lattice/protocols";
import { v5 as uuidV5 } from "uuid";
import type { LanggraphServices } from "./langgraphServices";
import { HttpError } from "../http/errors";
import { threadScope } from "../routes/lookups";
import { storedCron } from "./cronRequest";
import { planRun, runCreateSchema } from "./runRequest";
import { type RunStarterServices, langgraphRunStarter } from "./runStarter";
import { deleteWhenEnded } from "./statelessRuns";
import { ANY_ASSISTANT } from "./threadView";

/** The namespace of fire run ids (a fixed, random UUID): one cron and scheduled time name one run. */
const CRON_FIRE_NAMESPACE = "2f0b8f5e-6c1d-4f59-9a52-0c4f3f9d7a61";

/** The run id of one fire, the same on every attempt of that fire. */
export const cronFireRunId = (cronId: string, scheduledAt: number): string => uuidV5(`${cronId}:${scheduledAt}`, CRON_FIRE_NAMESPACE);

/**
 * What a LangGraph cron's fire does, on the one replica whose claim of the fire won: queues the
 * cron's run as `POST /threads/{id}/runs` would (its thread), or on a thread of its own (a cron
 * without one; deleted once the run ended unless `on_run_completed: keep`). The run is labelled
 * with the cron and the fire (`cron_id`, `cron_scheduled_at` in its metadata). A fire past the
 * cron's `end_time` queues nothing and cancels the cron; a fire refused because the thread is busy
 * (`multitask_strategy: reject`) is skipped, as the platform skips it. The run's id is the fire's: a
 * fire run again after its replica died between queueing the run and recording the fire finds the
 * run queued (`DUPLICATE_MESSAGE`) and queues nothing, so each fire queues its run once.
 */
export function langgraphCronFire(gateway: RunStarterServices & Pick<LanggraphServices, "schedules">): ScheduleHandler {
  const { threadForRun, startRun } = langgraphRunStarter(gateway);
  return async ({ task, scheduledAt }) => {
    const cron = storedCron.parse(task.payload);
    if (cron.end_time && scheduledAt > Date.parse(cron.end_time)) {
      await gateway.schedules.cancel(task.taskId);
      return;
    }
    const label = { cron_id: task.taskId, cron_scheduled_at: new Date(scheduledAt).toISOString() };
    const body = runCreateSchema.parse({ ...cron.run, metadata: { ...(cron.run.metadata as object | undefined), ...label } });
    const plan = planRun(body);
    const ownThread = task.threadId === undefined;
    const thread: Thread = ownThread
      ? await gateway.stores.threads.createThread(task.tenantId, { assistantId: ANY_ASSISTANT, metadata: { cron_id: task.taskId } })
      : await threadForRun(task.tenantId, task.threadId!, body.if_not_exists);
    try {
      const { agent, result } = await startRun(thread, body, plan, "queue", cronFireRunId(task.taskId, scheduledAt));
      if (ownThread && cron.on_run_completed !== "keep") void deleteWhenEnded(gateway, agent, thread, result.messageId);
    } catch (error) {
      if (ownThread) await gateway.agents.deleteThread(threadScope(thread));
      if (error instanceof HttpError && error.code === "THREAD_BUSY") {
        gateway.logger.info({ cronId: task.taskId, threadId: thread.id, scheduledAt }, "LangGraph cron fire skipped: its thread is busy (multitask_strategy reject)");
        return;
      }
      if ((error as { code?: unknown } | null)?.code === "DUPLICATE_MESSAGE") {
        gateway.logger.info({ cronId: task.taskId, scheduledAt }, "LangGraph cron fire already queued its run (an earlier attempt of this fire)");
        return;
      }
      throw error;
    }
  };
}
