import { REPLICA_PRESENCE_RETENTION_MS, requireText, validateAnnouncement } from "@axiom-lattice/core";
import type { ReplicaAnnouncement, ReplicaPresence, ReplicaPresenceStore, ReplicaRole, ReplicaStoreMode } from "@axiom-lattice/protocols";
import { PgStore } from "../db/pgStore";
import { ANNOUNCE_PRESENCE, LIST_PRESENT, WITHDRAW_PRESENCE } from "./replicaPresenceSql";

interface PresenceRow {
  replica_id: string;
  version: string;
  started_at: Date;
  store_mode: ReplicaStoreMode;
  role: ReplicaRole;
  active_runs: number;
  outbox_cursor: string | null;
  outbox_lag_ms: number;
  key_versions: string[] | null;
  last_seen_at: Date;
  expires_at: Date;
}

const toPresence = (row: PresenceRow): ReplicaPresence => ({
  replicaId: row.replica_id,
  version: row.version,
  startedAt: row.started_at,
  storeMode: row.store_mode,
  role: row.role,
  activeRuns: row.active_runs,
  outboxCursor: row.outbox_cursor,
  outboxLagMs: row.outbox_lag_ms,
  ...(row.key_versions ? { keyVersions: row.key_versions } : {}),
  lastSeenAt: row.last_seen_at,
  expiresAt: row.expires_at,
});

/** {@link ReplicaPresenceStore} on `lattice_replica_presence`: one row per replica id. */
export class PostgreSQLReplicaPresenceStore extends PgStore implements ReplicaPresenceStore {
  async announce(announcement: ReplicaAnnouncement, ttlMs: number): Promise<ReplicaPresence> {
    const a = validateAnnouncement(announcement, ttlMs);
    await this.initialize();
    const { rows } = await this.pool.query<PresenceRow>(ANNOUNCE_PRESENCE, [
      a.replicaId,
      a.version,
      a.startedAt,
      a.storeMode,
      a.role,
      a.activeRuns,
      a.outboxCursor,
      a.outboxLagMs,
      ttlMs,
      REPLICA_PRESENCE_RETENTION_MS,
      a.keyVersions ?? null,
    ]);
    return toPresence(rows[0]);
  }

  async listPresent(): Promise<ReplicaPresence[]> {
    await this.initialize();
    const { rows } = await this.pool.query<PresenceRow>(LIST_PRESENT);
    return rows.map(toPresence);
  }

  async withdraw(replicaId: string): Promise<boolean> {
    const id = requireText(replicaId, "replicaId");
    await this.initialize();
    const { rowCount } = await this.pool.query(WITHDRAW_PRESENCE, [id]);
    return rowCount === 1;
  }
}
