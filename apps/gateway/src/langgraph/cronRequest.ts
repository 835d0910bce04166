import { z } from "zod";
import { runCreateSchema } from "./runRequest";

/** The schedule task type of LangGraph crons: each fire queues the cron's run (`cronFire`). */
export const LANGGRAPH_CRON_TASK_TYPE = "langgraph-cron";

const schedule = z.string().min(1).max(128).describe("A cron expression read in UTC: 5 fields, or 6 with seconds first");
const endTime = z.iso.datetime({ offset: true }).nullable().describe("No fire after this time");
const onRunCompleted = z.enum(["delete", "keep"]).describe("Crons without a thread: delete each fire's thread once its run ended (default), or keep it");

/** The fields of a cron that are not its run's. */
const CRON_FIELDS = { schedule: true, end_time: true, on_run_completed: true, enabled: true } as const;

/**
 * The body of `POST /threads/{id}/runs/crons` and `POST /runs/crons`, as the SDK sends it: a run's
 * body (what each fire queues) and the cron's own fields.
 */
export const cronCreateSchema = runCreateSchema.omit({ on_disconnect: true, on_completion: true }).extend({
  schedule,
  end_time: endTime.optional(),
  on_run_completed: onRunCompleted.default("delete"),
  enabled: z.boolean().default(true).describe("false: created paused"),
});

export type CronCreateBody = z.output<typeof cronCreateSchema>;

/** The body of `PATCH /runs/crons/{id}` (the SDK's `crons.update`): what it names is replaced. */
export const cronUpdateSchema = cronCreateSchema
  .pick({ input: true, metadata: true, config: true, context: true, webhook: true, end_time: true, interrupt_before: true, interrupt_after: true })
  .extend({
    schedule: schedule.optional(),
    on_run_completed: onRunCompleted.optional(),
    enabled: z.boolean().optional(),
  });

export type CronUpdateBody = z.output<typeof cronUpdateSchema>;

/** What a LangGraph cron keeps in its schedule's payload. */
export const storedCron = z.object({
  /** The run each fire queues, as its body was given (a run's body once parsed by `runCreateSchema`). */
  run: z.record(z.string(), z.unknown()),
  end_time: z.string().nullable().optional(),
  on_run_completed: onRunCompleted.optional(),
});

export type StoredCron = z.output<typeof storedCron>;

/** The run part of a cron's body (what `runCreateSchema` reads), without the cron's own fields. */
export function runBodyOf(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => !(field in CRON_FIELDS) && value !== undefined));
}
