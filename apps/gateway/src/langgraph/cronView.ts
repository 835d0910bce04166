import { type ScheduledTaskDefinition, ScheduledTaskStatus } from "@axiom-lattice/protocols";
import { z } from "zod";
import { storedCron } from "./cronRequest";

const ACTIVE: ScheduledTaskStatus[] = [ScheduledTaskStatus.PENDING, ScheduledTaskStatus.RUNNING];

/** A cron as the LangGraph API shows it (the SDK's `Cron`). */
export const cronView = z.object({
  cron_id: z.string(),
  assistant_id: z.string(),
  thread_id: z.string().nullable().describe("null: each fire runs on a thread of its own"),
  on_run_completed: z.enum(["delete", "keep"]).optional().describe("Crons without a thread: what becomes of each fire's thread once its run ended"),
  end_time: z.date().nullable(),
  schedule: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
  payload: z.record(z.string(), z.unknown()).describe("The run each fire queues (its body)"),
  user_id: z.string().nullable().describe("Not recorded: null"),
  next_run_date: z.date().nullable().describe("The next fire; null when disabled or ended"),
  metadata: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
}).meta({ id: "LangGraphCron" });

export type CronView = z.input<typeof cronView>;

/** The view of a LangGraph cron's schedule. */
export function toCronView(task: ScheduledTaskDefinition): CronView {
  const { run, end_time, on_run_completed } = storedCron.parse(task.payload);
  const enabled = ACTIVE.includes(task.status);
  const ended = end_time && task.nextRunAt !== undefined && task.nextRunAt > Date.parse(end_time);
  return {
    cron_id: task.taskId,
    assistant_id: task.assistantId ?? String(run.assistant_id),
    thread_id: task.threadId ?? null,
    ...(task.threadId ? {} : { on_run_completed: on_run_completed ?? "delete" }),
    end_time: end_time ? new Date(end_time) : null,
    schedule: task.cronExpression ?? "",
    created_at: new Date(task.createdAt),
    updated_at: new Date(task.updatedAt),
    payload: run,
    user_id: null,
    next_run_date: enabled && !ended && task.nextRunAt !== undefined ? new Date(task.nextRunAt) : null,
    metadata: (run.metadata as Record<string, unknown> | undefined) ?? {},
    enabled,
  };
}
