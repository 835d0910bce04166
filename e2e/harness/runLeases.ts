import type { Pool } from "pg";
import { ASSISTANT } from "./workloads";

const TENANT = "default";

/** The thread-run lease key of a thread of the echo assistant (each part URI-encoded, as the product does). */
function threadRunLeaseKey(threadId: string): string {
  return `thread-run:${[TENANT, ASSISTANT, threadId].map(encodeURIComponent).join(":")}`;
}

/** The LangGraph checkpointer's `thread_id` of a thread. */
export function checkpointThreadId(threadId: string): string {
  return `${encodeURIComponent(TENANT)}:${encodeURIComponent(threadId)}`;
}

/**
 * A message's claim next to its thread's run lease, as the database sees them at `nowMs`. Times are
 * milliseconds on the database clock, the clock both expire by.
 */
export interface RunLeases {
  nowMs: number;
  status: string;
  /** The replica that claimed the message (its run record's replica). */
  claimReplicaId: string | null;
  claimExpiresMs: number | null;
  /** `<replica id>#<uuid>` of the thread's run lease row (it may have expired), or null when there is none. */
  leaseHolder: string | null;
  leaseRenewedMs: number | null;
  leaseExpiresMs: number | null;
}

/** A message being run: claimed, on a thread whose run lease is held (not expired). */
export type HeldRun = RunLeases & {
  claimReplicaId: string;
  claimExpiresMs: number;
  leaseHolder: string;
  leaseRenewedMs: number;
  leaseExpiresMs: number;
};

export function isHeld(leases: RunLeases | undefined): leases is HeldRun {
  return (
    leases?.status === "processing" &&
    leases.claimReplicaId !== null &&
    leases.claimExpiresMs !== null &&
    leases.leaseHolder !== null &&
    leases.leaseRenewedMs !== null &&
    leases.leaseExpiresMs !== null &&
    leases.leaseExpiresMs > leases.nowMs
  );
}

/** Reads a message's claim and its thread's run lease in one snapshot. */
export async function readRunLeases(pool: Pool, threadId: string, messageId: string): Promise<RunLeases | undefined> {
  const { rows } = await pool.query<RunLeases>(
    `SELECT extract(epoch FROM now())::float8 * 1000 AS "nowMs",
            q.status,
            q.replica_id AS "claimReplicaId",
            extract(epoch FROM q.lease_expires_at)::float8 * 1000 AS "claimExpiresMs",
            l.holder AS "leaseHolder",
            extract(epoch FROM l.renewed_at)::float8 * 1000 AS "leaseRenewedMs",
            extract(epoch FROM l.expires_at)::float8 * 1000 AS "leaseExpiresMs"
       FROM lattice_thread_message_queue q
       LEFT JOIN lattice_leases l ON l.key = $2
      WHERE q.id = $1
        AND q.tenant_id = 'default'`,
    [messageId, threadRunLeaseKey(threadId)],
  );
  return rows[0];
}

/** The replica id part of a lease holder (`<replica id>#<uuid>`). */
export function holderReplicaId(holder: string): string {
  return holder.slice(0, holder.lastIndexOf("#"));
}
