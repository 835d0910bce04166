// Every timing default of the PostgreSQL stores, named once with its reason. Queue capacity and the
// lease TTLs are core's defaults, the same whichever store runs them.

/**
 * A dropped LISTEN connection is re-opened after a backoff doubling from the first delay to the cap:
 * quick after a blip, yet never hammering a database that is down (the sweeps cover what is missed).
 */
export const LISTENER_FIRST_RETRY_MS = 100;
export const LISTENER_MAX_RETRY_MS = 10_000;
