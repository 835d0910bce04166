import type { PendingMessage } from "@axiom-lattice/protocols";
import { z } from "zod";

// The JSON shapes of what a thread holds, shared by the thread and run routes.

/** A checkpointed message as clients read it. */
export const messageView = z.object({
  id: z.string().optional(),
  type: z.string().describe("human, ai, tool or system"),
  content: z.string(),
  name: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()) })).optional(),
  toolCallId: z.string().optional(),
}).meta({ id: "Message" });

/** An `interrupt()` the thread waits on; `value` is what the graph asked. */
export const interruptView = z.object({ id: z.string().optional(), value: z.unknown() });

const runStatus = z.enum(["pending", "running", "success", "error", "interrupted", "aborted"]);

/** A message in the queue, as stored (pending, or processing under a replica's claim). */
export const queuedMessageView = z.object({
  id: z.string(),
  threadId: z.string(),
  tenantId: z.string().optional(),
  assistantId: z.string().optional(),
  content: z.unknown(),
  priority: z.number(),
  sequence: z.string(),
  status: z.enum(["pending", "processing", "completed"]),
  createdAt: z.date(),
  lockedBy: z.string().optional(),
  lockedAt: z.date().optional(),
  leaseExpiresAt: z.date().optional(),
  runStatus,
  attempts: z.number().int().describe("How many times the message was claimed: above 1 once it runs again after a replica stopped (or died) running it"),
  replicaId: z.string().optional(),
  startedAt: z.date().optional(),
  finishedAt: z.date().optional(),
  error: z.string().optional(),
  abortRequestedAt: z.date().optional().describe("When an abort of its run was requested; the replica running it applies it"),
});

/** What a run's `error` holds; clients may rely on its leading code. */
export const RUN_ERROR_DESCRIPTION =
  "Why the run failed or was aborted. A failure with a stable code starts with it and a colon: `UPSTREAM_UNREACHABLE`, `UPSTREAM_AUTH_FAILED`, " +
  "`UPSTREAM_TIMEOUT`, `UPSTREAM_RATE_LIMITED`, `UPSTREAM_INVALID_RESPONSE` (the model API failed), `UNKNOWN_TOOL`, `UNKNOWN_MODEL_PROVIDER`…";

/** One run of a thread: a processed message, or the one in progress (`running`). */
export const runRecordView = z.object({
  messageId: z.string(),
  status: runStatus,
  replicaId: z.string().nullable().describe("The replica that ran (or runs) it"),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  error: z.string().nullable().describe(RUN_ERROR_DESCRIPTION),
  abortRequestedAt: z.date().nullable().describe("When an abort was requested: on a run still `running`, its replica is stopping it (or the next one will)"),
}).meta({ id: "RunRecord" });

export const toRunRecord = (run: PendingMessage): z.input<typeof runRecordView> => ({
  messageId: run.id,
  status: run.runStatus,
  replicaId: run.replicaId ?? null,
  startedAt: run.startedAt ?? null,
  finishedAt: run.finishedAt ?? null,
  error: run.error ?? null,
  abortRequestedAt: run.abortRequestedAt ?? null,
});
