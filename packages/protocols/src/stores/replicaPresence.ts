/** Where a replica keeps its state. */
export type ReplicaStoreMode = "memory" | "postgresql";

/**
 * What a replica does: `all` serves the API and runs messages; `api` serves the API and leaves every
 * run to the `worker` replicas, which run messages and serve only health and metrics.
 */
export const REPLICA_ROLES = ["all", "api", "worker"] as const;
export type ReplicaRole = (typeof REPLICA_ROLES)[number];

/** What a replica says about itself each time it announces its presence. */
export interface ReplicaAnnouncement {
  replicaId: string;
  /** The gateway's package version. */
  version: string;
  startedAt: Date;
  storeMode: ReplicaStoreMode;
  role: ReplicaRole;
  /** Threads the replica is running now. */
  activeRuns: number;
  /** Its outbox poller's cursor (`null` before the poller started), and how late its last page was read. */
  outboxCursor: string | null;
  outboxLagMs: number;
  /**
   * The versions of `LATTICE_ENCRYPTION_KEY` it can open secrets with, the one it seals with first:
   * `keys:rotate` refuses to seal under a version a live replica lacks. Absent from a replica of an
   * older version, which did not say.
   */
  keyVersions?: string[];
}

/** A replica seen recently: its last announcement, and when it was made and lapses (store's clock). */
export interface ReplicaPresence extends ReplicaAnnouncement {
  lastSeenAt: Date;
  expiresAt: Date;
}

/**
 * Which replicas are alive, for operators. Not exclusive, unlike a lease: a replica restarted under
 * the same id replaces its old record at once. Expiry is judged by the store's clock.
 *
 * Bad arguments are refused with an error whose `code` is `INVALID_STORE_ARGUMENT`; nothing is written.
 */
export interface ReplicaPresenceStore {
  /** Records the announcement, present until `ttlMs` from now; replaces the replica's earlier one. */
  announce(announcement: ReplicaAnnouncement, ttlMs: number): Promise<ReplicaPresence>;
  /** Replicas whose presence has not lapsed, by replica id. */
  listPresent(): Promise<ReplicaPresence[]>;
  /** Removes the replica's presence (it is shutting down); `false` when there was none. */
  withdraw(replicaId: string): Promise<boolean>;
}
