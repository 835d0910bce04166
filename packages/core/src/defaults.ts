// Every timing and size default of core, each named once with its reason. Components take overrides
// through their options; the gateway passes what its operator configured.

/** Thread-run lease TTL (renewed every third): how soon a peer takes a dead replica's thread over. */
export const THREAD_RUN_TTL_MS = 30_000;
/** A leader lease: replicas that start within this window of the leader skip the same work. */
export const LEADER_LEASE_TTL_MS = 5 * 60_000;
/** `withLease`: the critical section's lease, and how long and how often to try for it. */
export const WITH_LEASE_TTL_MS = 30_000;
export const WITH_LEASE_ACQUIRE_TIMEOUT_MS = 10_000;
export const WITH_LEASE_RETRY_DELAY_MS = 100;
/** Most leases one `LeaseStore.list` returns: an operator's view, not an export. */
export const LEASE_LIST_MAX = 1_000;

/** Replica presence: announced this often, lapsing after three missed announcements (one lost beat is no absence). */
export const REPLICA_PRESENCE_INTERVAL_MS = 5_000;
export const REPLICA_PRESENCE_MISSED_BEATS = 3;
/** A lapsed replica's record is deleted this long after it lapsed (ids such as `hostname:pid` never return). */
export const REPLICA_PRESENCE_RETENTION_MS = 24 * 60 * 60_000;

/** Queued messages per thread: one thread cannot take the whole queue. */
export const DEFAULT_QUEUE_CAPACITY = 1_000;
/** Run records the in-memory queue keeps per thread, so a long-lived single process stays bounded. */
export const IN_MEMORY_RETAINED_RUNS = 1_000;

/** Outbox poller: the fallback poll when no wake-up comes, events per read, and the longest re-poll
 * while committed events wait behind an open transaction (most holds last a millisecond). */
export const OUTBOX_POLL_INTERVAL_MS = 1_000;
export const OUTBOX_BATCH_SIZE = 100;
export const OUTBOX_PENDING_RETRY_MS = 20;

/** Retention (a maintenance task): the first sweep a minute after a replica becomes leader (not during startup), then every 6 hours. */
export const RETENTION_INITIAL_DELAY_MS = 60_000;
export const RETENTION_INTERVAL_MS = 6 * 60 * 60_000;

/**
 * Heartbeats a live holder may miss (a slow query, a GC pause) before peers treat it as dead. Every
 * "is it abandoned?" threshold below is this many of the heartbeat intervals it is judged by.
 */
export const MISSED_HEARTBEATS_BEFORE_ABANDONED = 3;

/** Schedules: how often a running fire refreshes its claim (its heartbeat: one small UPDATE). */
export const SCHEDULE_HEARTBEAT_MS = 2_000;
/** Schedules: a `running` fire whose heartbeat stopped this long ago lost its runner; requeue it. */
export const scheduleStaleRunningMs = (heartbeatMs: number): number => heartbeatMs * MISSED_HEARTBEATS_BEFORE_ABANDONED;

/**
 * Maintenance (requeueing abandoned schedule fires, retention): the leader's pass runs this often,
 * and every other replica bids for leadership as often. As often as a fire heartbeats, so an
 * abandoned fire is requeued within one pass of turning stale.
 */
export const MAINTENANCE_INTERVAL_MS = SCHEDULE_HEARTBEAT_MS;
/** The maintenance leader's lease (renewed every third): a dead leader is replaced within it plus one bid. */
export const maintenanceLeaseTtlMs = (intervalMs: number): number => intervalMs * MISSED_HEARTBEATS_BEFORE_ABANDONED;

/**
 * One-shot schedules: an `executeAt` this far in the past still counts as "now" (client clock skew
 * and request latency); further back it is refused, since it would fire at once as if it were due.
 */
export const SCHEDULE_PAST_TOLERANCE_MS = 5_000;
/** Schedules: a fire claimed later than this after its time counts as missed (catch-up policy). */
export const SCHEDULE_MISSED_FIRE_GRACE_MS = 60_000;
/** Schedules: retries of a failed fire, with backoff doubling from the base up to the cap. */
export const SCHEDULE_MAX_RETRIES = 3;
export const SCHEDULE_RETRY_BASE_MS = 1_000;
export const SCHEDULE_RETRY_MAX_MS = 5 * 60_000;
/** Schedules: after a storage failure, look at the task again this much later rather than forget it. */
export const SCHEDULE_STORAGE_RETRY_MS = 5_000;

/**
 * Free-form JSON (thread metadata, resume values, schedule payloads): real values nest a handful of
 * levels; 32 stays far below any serializer's or jsonb's recursion limit. 64 KiB holds any reasonable
 * set of labels or parameters and keeps a listing of 1,000 threads a sane size.
 */
export const MAX_JSON_DEPTH = 32;
export const MAX_JSON_BYTES = 64 * 1024;

/**
 * Project task machine (`ProjectTaskExecutionMutex`): the cross-replica lease around one operation
 * (renewed every third of its ttl), how long to wait for it, and the retry backoff, doubling from the
 * first delay up to the cap, so waiting replicas poll often at first and do not hammer the store later.
 */
export const PROJECT_TASK_MACHINE_LEASE_TTL_MS = THREAD_RUN_TTL_MS;
export const PROJECT_TASK_MACHINE_ACQUIRE_TIMEOUT_MS = 90_000;
export const PROJECT_TASK_MACHINE_RETRY_DELAY_MS = 20;
export const PROJECT_TASK_MACHINE_MAX_RETRY_DELAY_MS = 1_000;
/** Task ids (and the ids a task refers to: owner, parent, project…): long enough for any UUID or slug, short enough to index. */
export const MAX_TASK_ID_LENGTH = 128;
/** Most tasks one page of `TaskStore.scanTasks` returns. */
export const TASK_LIST_MAX = 1_000;

/** Project rooms: the longest message a room keeps (characters). */
export const ROOM_MESSAGE_MAX_CHARS = 16_384;

/**
 * Long-term memory (the LangGraph store): an item's namespace labels and key together stay well
 * within a PostgreSQL index entry (about 2.7 KB); a namespace this deep is already unusual.
 */
export const ITEM_ADDRESS_MAX_BYTES = 1_024;
export const ITEM_NAMESPACE_MAX_LABELS = 20;
/** A time-to-live (a store item's, a thread's) of a century is "for ever" in practice; a larger one is a mistake. */
export const TTL_MAX_MINUTES = 100 * 365 * 24 * 60;
/**
 * How often the maintenance leader removes expired items. Reads never return an expired item, so
 * this only bounds how long expired rows take room.
 */
export const ITEM_EXPIRY_SWEEP_INTERVAL_MS = 60_000;
