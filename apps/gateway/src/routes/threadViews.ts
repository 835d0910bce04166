import type { PlainMessage, RunResult } from "@axiom-lattice/agent";
import type { PendingMessage, Thread } from "@axiom-lattice/protocols";
import { z } from "zod";

// The JSON shapes of threads and what they hold, shared by the thread, run and task routes: each
// schema documents what its view function sends (snake_case keys; free-form values as they are).

/** A thread as clients read it. */
export const threadView = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    assistant_id: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "Thread" });

export const toThreadView = (thread: Thread): z.input<typeof threadView> => ({
  id: thread.id,
  tenant_id: thread.tenantId,
  assistant_id: thread.assistantId,
  metadata: thread.metadata,
  created_at: thread.createdAt,
  updated_at: thread.updatedAt,
});

/** A checkpointed message as clients read it. */
export const messageView = z
  .object({
    id: z.string().optional(),
    type: z.string().describe("human, ai, tool or system"),
    content: z.string(),
    name: z.string().optional(),
    tool_calls: z.array(z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()) })).optional(),
    tool_call_id: z.string().optional(),
  })
  .meta({ id: "Message" });

export const toMessageView = (message: PlainMessage): z.input<typeof messageView> => ({
  id: message.id,
  type: message.type,
  content: message.content,
  name: message.name,
  // A call's args are the model's JSON: passed as they are.
  tool_calls: message.toolCalls,
  tool_call_id: message.toolCallId,
});

/** An `interrupt()` the thread waits on; `value` is what the graph asked. */
export const interruptView = z.object({ id: z.string().optional(), value: z.unknown() });

const runStatus = z.enum(["pending", "running", "success", "error", "interrupted", "aborted"]);

/** A message in the queue, as stored (pending, or processing under a replica's claim). */
export const queuedMessageView = z
  .object({
    id: z.string(),
    thread_id: z.string(),
    tenant_id: z.string().optional(),
    assistant_id: z.string().optional(),
    content: z.unknown(),
    priority: z.number(),
    sequence: z.number().int().describe("Queue order: equal priorities run in increasing sequence"),
    status: z.enum(["pending", "processing", "completed"]),
    created_at: z.date(),
    locked_by: z.string().optional(),
    locked_at: z.date().optional(),
    lease_expires_at: z.date().optional(),
    run_status: runStatus,
    attempts: z.number().int().describe("How many times the message was claimed: above 1 once it runs again after a replica stopped (or died) running it"),
    replica_id: z.string().optional(),
    started_at: z.date().optional(),
    finished_at: z.date().optional(),
    error: z.string().optional(),
    abort_requested_at: z.date().optional().describe("When an abort of its run was requested; the replica running it applies it"),
  })
  .meta({ id: "QueuedMessage" });

/** Only the keys whose value is present, as the store leaves absent what a message does not have. */
const present = <T extends Record<string, unknown>>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;

export const toQueuedMessageView = (message: PendingMessage): z.input<typeof queuedMessageView> => ({
  id: message.id,
  thread_id: message.threadId,
  content: message.content,
  priority: message.priority,
  // Far within a safe integer: one sequence serves every queued message ever.
  sequence: Number(message.sequence),
  status: message.status,
  created_at: message.createdAt,
  run_status: message.runStatus,
  attempts: message.attempts,
  ...present({
    tenant_id: message.tenantId,
    assistant_id: message.assistantId,
    locked_by: message.lockedBy,
    locked_at: message.lockedAt,
    lease_expires_at: message.leaseExpiresAt,
    replica_id: message.replicaId,
    started_at: message.startedAt,
    finished_at: message.finishedAt,
    error: message.error,
    abort_requested_at: message.abortRequestedAt,
  }),
});

/** What a run's `error` holds; clients may rely on its leading code. */
export const RUN_ERROR_DESCRIPTION =
  "Why the run failed or was aborted. A failure with a stable code starts with it and a colon: `UPSTREAM_UNREACHABLE`, `UPSTREAM_AUTH_FAILED`, " +
  "`UPSTREAM_TIMEOUT`, `UPSTREAM_RATE_LIMITED`, `UPSTREAM_INVALID_RESPONSE`, `UPSTREAM_REDIRECT_BLOCKED` (the model API failed), `UNKNOWN_TOOL`, `UNKNOWN_MODEL_PROVIDER`…";

/** One run of a thread: a processed message, or the one in progress (`running`). */
export const runRecordView = z
  .object({
    message_id: z.string(),
    status: runStatus,
    replica_id: z.string().nullable().describe("The replica that ran (or runs) it"),
    started_at: z.date().nullable(),
    finished_at: z.date().nullable(),
    error: z.string().nullable().describe(RUN_ERROR_DESCRIPTION),
    abort_requested_at: z.date().nullable().describe("When an abort was requested: on a run still `running`, its replica is stopping it (or the next one will)"),
  })
  .meta({ id: "RunRecord" });

export const toRunRecordView = (run: PendingMessage): z.input<typeof runRecordView> => ({
  message_id: run.id,
  status: run.runStatus,
  replica_id: run.replicaId ?? null,
  started_at: run.startedAt ?? null,
  finished_at: run.finishedAt ?? null,
  error: run.error ?? null,
  abort_requested_at: run.abortRequestedAt ?? null,
});

export const finishedRunStatus = z.enum(["success", "error", "interrupted", "aborted"]);

/** How a run ended, as `mode: "wait"` answers it. */
export const runResultView = z
  .object({
    message_id: z.string(),
    status: finishedRunStatus.describe("How the run ended; the request succeeded either way"),
    error: z.string().optional().describe(RUN_ERROR_DESCRIPTION),
    interrupts: z.array(interruptView).optional().describe("interrupted: what the run asks; answer with a resume command"),
    messages: z.array(messageView).describe("The messages this run added to the thread"),
  })
  .meta({ id: "RunResult" });

export const toRunResultView = (result: RunResult): z.input<typeof runResultView> => ({
  message_id: result.messageId,
  status: result.status,
  error: result.error,
  interrupts: result.interrupts,
  messages: result.messages.map(toMessageView),
});
