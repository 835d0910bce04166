import type { ScheduleHandler } from "@axiom-lattice/core";
import type { Thread } from "@axiom-lattice/protocols";
import { v5 as uuidV5 } from "uuid";
import type { LanggraphServices } from "./langgraphServices";
import { RUN_OWN_THREAD_TTL_MINUTES } from "../defaults";
import { threadScope } from "../shared/lookups";
import { storedCron } from "./cronRequest";
import { planRun, runCreateSchema } from "./runRequest";
import { type RunStarterServices, langgraphRunStarter } from "./runStarter";
import { deleteWhenEnded } from "./statelessRuns";

/** The namespace of fire run ids (a fixed, random UUID): one cron and scheduled time name one run. */
const CRON_FIRE_NAMESPACE = "2f0b8f5e-6c1d-4f59-9a52-0c4f3f9d7a61";

/** The run id of one fire, the same on every attempt of that fire. */
export const cronFireRunId = (cronId: string, scheduledAt: number): string => uuidV5(`${cronId}:${scheduledAt}`, CRON_FIRE_NAMESPACE);

/** The thread of one fire of a cron without a thread, the same on every attempt of that fire. */
export const cronFireThreadId = (cronId: string, scheduledAt: number): string => uuidV5(`${cronId}:${scheduledAt}:thread`, CRON_FIRE_NAMESPACE);

/**
 * What a LangGraph cron's fire does, on the one replica whose claim of the fire won: queues the
 * cron's run as `POST /threads/{id}/runs` would (its thread), or on a thread of its own (a cron
 * without one; deleted once the run ended unless `on_run_completed: keep`). The run is labelled
 * with the cron and the fire (`cron_id`, `cron_scheduled_at` in its metadata). A fire past the
 * cron's `end_time` queues nothing and cancels the cron; a fire refused because the thread is busy
 * (`multitask_strategy: reject`) is skipped, as the platform skips it. The run's id, and a cron
 * without a thread's thread id, are the fire's: a fire run again after its replica died before
 * recording it finds the thread it made and the run it queued (`DUPLICATE_MESSAGE`, or the thread
 * busy with it), so each fire makes one thread and queues its run once.
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
    const runId = cronFireRunId(task.taskId, scheduledAt);
    const ownThread = task.threadId === undefined;
    const thread: Thread = ownThread
      ? await threadForRun(task.tenantId, cronFireThreadId(task.taskId, scheduledAt), "create", {
          metadata: { cron_id: task.taskId },
          ttlMinutes: cron.on_run_completed === "keep" ? undefined : RUN_OWN_THREAD_TTL_MINUTES,
        })
      : await threadForRun(task.tenantId, task.threadId!, body.if_not_exists);
    const deleteOwnThreadWhenEnded = () => {
      if (ownThread && cron.on_run_completed !== "keep") void deleteWhenEnded(gateway, gateway.agents.getAgent(threadScope(thread)), thread, runId);
    };
    try {
      await startRun(task.tenantId, thread, body, plan, "queue", runId);
      deleteOwnThreadWhenEnded();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      // An earlier attempt of this fire queued the run, then its replica died before recording the
      // fire: the run stands (on a cron without a thread, on the fire's thread, busy with it until it ends).
      if (code === "DUPLICATE_MESSAGE" || (ownThread && code === "THREAD_BUSY")) {
        gateway.logger.info({ cronId: task.taskId, scheduledAt }, "LangGraph cron fire already queued its run (an earlier attempt of this fire)");
        deleteOwnThreadWhenEnded();
        return;
      }
      if (ownThread) await gateway.agents.deleteThread(threadScope(thread));
      if (code === "THREAD_BUSY") {
        gateway.logger.info({ cronId: task.taskId, threadId: thread.id, scheduledAt }, "LangGraph cron fire skipped: its thread is busy (multitask_strategy reject)");
        return;
      }
      throw error;
    }
  };
}
