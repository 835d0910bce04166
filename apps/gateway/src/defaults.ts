// Every default of the gateway, each named once with its reason. The run lease and the run
// concurrency come from the packages whose behaviour they set (core and agent).

/** Where the gateway listens unless PORT and HOST say otherwise: this machine only. */
export const DEFAULT_PORT = 4001;
export const DEFAULT_HOST = "127.0.0.1";
/** A streaming run sent to a replica that does not run its thread waits this long for it to move here. */
export const DEFAULT_AFFINITY_GRACE_MS = 500;
/** Outbox events matter until every poller has passed them (seconds); a day leaves room to inspect them. */
export const DEFAULT_OUTBOX_RETENTION_HOURS = 24;
/** Run history is what users look back at ("what ran over the weekend?"): a week of it. */
export const DEFAULT_RUN_RETENTION_HOURS = 7 * 24;
/**
 * Startup waits this long for the database (a server restarting or failing over takes seconds to a
 * minute) before the process exits non-zero, for its supervisor to restart it.
 */
export const DEFAULT_DB_STARTUP_TIMEOUT_MS = 60_000;
/** Startup's retries of the database: from the first delay, doubling up to the cap. */
export const DB_STARTUP_FIRST_RETRY_MS = 500;
export const DB_STARTUP_MAX_RETRY_MS = 5_000;
/** `Retry-After` of a request refused because this replica or its database is not serving: a blip, a failover, a restart under way. */
export const RETRY_AFTER_UNAVAILABLE_S = 2;
/** `/ready` (and a `/metrics` scrape) answers within this, even when the database does not (a partition): a probe must not hang. */
export const READINESS_TIMEOUT_MS = 800;
/** A run's logged events serve clients resuming its stream, soon after it ran; a row per token is too bulky for a week. */
export const DEFAULT_RUN_EVENT_RETENTION_HOURS = 24;
/**
 * How often the maintenance leader deletes threads whose TTL ran out (one indexed query when none
 * did): a thread outlives its TTL by at most this, plus the time its runs take when it was in use.
 */
export const DEFAULT_THREAD_TTL_SWEEP_MS = 5_000;
/**
 * The TTL of a thread made for one run and deleted once it ended (a stateless run's, a threadless
 * cron fire's): the replica that deletes it may die first, and then the expiry sweep does, once the
 * thread is no longer in use.
 */
export const RUN_OWN_THREAD_TTL_MINUTES = 60;
/** A graceful shutdown gives in-flight requests and runs this long to settle before the process exits. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 15_000;
/** Largest request body accepted (413 beyond): every API body is small JSON; 1 MiB is generous. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A comment line on idle streams this often keeps proxies from closing them. */
export const SSE_HEARTBEAT_MS = 15_000;
/**
 * Limits per tenant, with authentication on (without it there is one user, held only by the
 * replica's own limits). Queued messages are counted across the cluster: enough for a large batch
 * (a thousand runs), small enough that one tenant's backlog cannot fill the database. Open streams
 * are counted per replica: a hundred live UIs of one tenant, while the replica's sockets stay
 * shared. The run-slot cap per tenant is half the replica's slots, rounded up (see config).
 */
export const DEFAULT_TENANT_MAX_QUEUED_MESSAGES = 1_000;
export const DEFAULT_TENANT_MAX_STREAMS = 100;
/**
 * Run submissions (a run-creating request's lookups and queueing) one tenant has under way on a
 * replica, by default a quarter of the database pool, at least 2: a tenant's bounded queueing
 * serialises on its advisory lock anyway, so more at once only held connections others wait for
 * (issue 42, bench B13). The waiting line behind them is bounded as open streams are; beyond it,
 * `429 TOO_MANY_SUBMISSIONS`, retried after a second (a submission takes milliseconds).
 */
export const defaultTenantMaxRunSubmissions = (poolMax: number) => Math.max(2, Math.floor(poolMax / 4));
export const TENANT_SUBMISSIONS_WAITING = 100;
export const RETRY_AFTER_SUBMISSIONS_S = 1;
/** `Retry-After` of a refusal because the tenant has too much under way (queued messages, open streams), or a task's machine is held. */
export const RETRY_AFTER_BUSY_S = 5;
/**
 * How long a request that writes a project task (cancel, resume) waits for the task's machine: a
 * live pass holds it for milliseconds, a replica that died holding it for up to a run lease, which no
 * request should wait out (it answers `409 TASK_MACHINE_BUSY` with `Retry-After` instead).
 */
export const TASK_MACHINE_REQUEST_WAIT_MS = 1_000;
/** The tenant of requests without authentication and without an `x-tenant-id` header. */
export const DEFAULT_TENANT = "default";
/** Histogram buckets (seconds): a run takes from a fraction of a second (a cached answer) to minutes. */
export const RUN_DURATION_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Time to a run's first chunk (seconds): what a streaming user waits before seeing anything. */
export const FIRST_CHUNK_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** HTTP request duration (seconds); streams last as long as their run, hence the long tail. */
export const HTTP_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Project room realtime (`ProjectRoomEventBroker`), which keeps no events: replay reads the message store. */
/** Fact keys remembered to drop a fact's second copy (a peer's mirror of it): oldest forgotten first. */
export const ROOM_SOURCE_KEY_LIMIT = 2_000;
/**
 * Events queued to one subscriber that has not taken them yet: beyond this it is cut off (a stalled
 * client must not hold memory). Live events wait here while a reconnecting subscriber is replayed.
 */
export const ROOM_MAX_PENDING_PER_SUBSCRIBER = 2_000;
/**
 * An MCP request (connect, list tools, a tool call) fails after this long unless its configuration
 * sets `timeout`: long enough for a slow tool, short enough that a hung server does not stall a run.
 */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** Runs one end user of a web app may create per minute on a replica, unless configured otherwise. */
export const WEB_APP_RUN_RATE_LIMIT_PER_MINUTE = 20;
/** How long a web app's replaced signing secret still verifies tokens: a day to roll the new one out. */
export const WEB_APP_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** An API key's last use is written at most this often per replica: a busy key costs a write a minute. */
export const API_KEY_USE_RECORD_INTERVAL_MS = 60_000;
/** A preview token's lifetime, unless the operator asks for another (at most a day). */
export const WEB_APP_PREVIEW_TOKEN_TTL_S = 60 * 60;
/**
 * A visitor token's lifetime (an `anonymous` web app's end user): a month, renewed by the page while
 * still valid, so a returning visitor keeps their threads; a visitor gone longer starts afresh.
 */
export const WEB_APP_VISITOR_TOKEN_TTL_S = 30 * 24 * 60 * 60;
/** New visitor tokens one client address may take per web app and minute on a replica, unless configured otherwise. */
export const WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE = 10;
