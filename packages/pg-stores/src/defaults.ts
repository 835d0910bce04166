// Every timing default of the PostgreSQL stores, named once with its reason. Queue capacity and the
// lease TTLs are core's defaults, the same whichever store runs them.

/**
 * A dropped LISTEN connection is re-opened after a backoff doubling from the first delay to the cap:
 * quick after a blip, yet never hammering a database that is down (the sweeps cover what is missed).
 */
export const LISTENER_FIRST_RETRY_MS = 100;
export const LISTENER_MAX_RETRY_MS = 10_000;

/**
 * The shared pool's defaults (each a setting of the gateway, see the README). Ten connections serve a
 * replica's run slots and requests; a replica also holds {@link LISTEN_CONNECTIONS} outside the pool.
 */
export const POOL_MAX = 10;
/**
 * LISTEN connections per replica, outside the pool, at most: queue wake-ups and the outbox from the
 * start, and run events once the replica follows a run another replica runs.
 */
export const LISTEN_CONNECTIONS = 3;
/**
 * Opening a connection, or waiting for a free one in a full pool, fails after this: long enough for a
 * loaded server across a network, short enough that a request in an outage answers 503 promptly.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A statement the server has not finished in this long is cancelled (`statement_timeout`), and the
 * client gives up on an answer {@link QUERY_TIMEOUT_MARGIN_MS} later (`query_timeout`: what ends a wait
 * on a partitioned server). Every statement of the stores takes milliseconds; the largest are LangGraph
 * checkpoint writes of big states, far below this. Migrations, which may wait their turn behind a
 * peer's and build indexes on large tables, run on their own connection without it.
 */
export const STATEMENT_TIMEOUT_MS = 15_000;
/** The client's wait beyond the server's own cancel, so a slow statement ends with the server's error, the connection kept. */
export const QUERY_TIMEOUT_MARGIN_MS = 1_000;
/**
 * A transaction left open this long between its statements is ended by the server
 * (`idle_in_transaction_session_timeout`), its locks with it. The stores' transactions run their
 * statements back to back; one left open is a paused or partitioned replica's, and its locks (among them
 * the share lock of a write's lease fence) would otherwise hold every peer back until it woke.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5_000;
/** An idle pooled connection is closed after this: well within the idle timeouts of proxies and poolers. */
export const IDLE_TIMEOUT_MS = 30_000;
