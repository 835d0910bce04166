// Every timing and size default of the agent runtime, each named once with its reason. The lease
// TTL shared with core (`THREAD_RUN_TTL_MS`) lives in core's defaults.

/** Threads one replica runs at once; more wait for a slot, leaving their threads free for peers. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 8;
/**
 * Compiled assistant graphs kept per runtime, by configuration (see `AssistantGraphs`): a run of a
 * configuration in use needs no compiling; each is a few hundred kilobytes at most.
 */
export const ASSISTANT_GRAPH_CACHE_SIZE = 100;
/** How often each replica looks for threads with pending messages and no run owner. */
export const QUEUE_SWEEP_INTERVAL_MS = 2_000;
/** How often a stream of a message running on another replica checks whether it ended. */
export const STREAM_POLL_MS = 1_000;

/**
 * How long a run's stream waits out a database outage (retrying its reads every `STREAM_POLL_MS`)
 * before it gives up: the run itself waits out any outage, and its stream should outlast a failover
 * or a restart; past this, its client is better told (and resumes) than left with heartbeats only.
 */
export const STREAM_OUTAGE_PATIENCE_MS = 60_000;
/**
 * Delay before the enqueuing replica tells its peers of a thread: it wakes its own processor at once
 * and normally takes the thread, so peers are told (and step in) only when it has not by then.
 */
export const PEER_WAKE_DELAY_MS = 100;
/**
 * How long deleting a thread waits for its run lease: a processor keeps it a moment after its last
 * run (it looks at the queue once more), while a delete during a run is refused without a long wait.
 */
export const DELETE_LEASE_WAIT_MS = 500;
/**
 * How long a run's events wait to be written to the run event log together: a streaming run costs a
 * few writes a second, not one per token, and a follower on another replica lags by about this much.
 */
export const RUN_EVENT_FLUSH_MS = 150;
/**
 * At most this many of a run's events are streamed from its replica's buffer beyond the last one
 * logged: the run waits for its events to be logged before streaming more. A re-run of the message
 * starts its ids this far past the last logged one, so it never reuses an id an attempt that died
 * before logging may have streamed. Not a setting: every replica must use the same bound. Far above
 * what a flush interval holds at any model's speed, so in practice only a stalled database makes a
 * run wait.
 */
export const RUN_EVENT_UNLOGGED_LIMIT = 1_000;
/** Events read from the run event log per query by a follower catching up. */
export const RUN_EVENT_READ_PAGE = 500;
/** Stream buffers: chunks kept per message and in total, and how long after the message ends. */
export const DEFAULT_CHUNK_BUFFER_LIMITS = {
  maxChunksPerMessage: 2_000,
  maxTotalChunks: 20_000,
  retainMs: 5 * 60_000,
} as const;
/**
 * Model API calls: how long one request may take, and how many times a failed one is tried again.
 * Bounds how long an unreachable or hung provider holds a run (about 3 × 30 s plus back-off). Base
 * URLs may reach the machine's own and private networks, as for one user without authentication; a
 * gateway with tenants passes its own egress policy.
 */
export const DEFAULT_UPSTREAM_POLICY = { timeoutMs: 30_000, maxRetries: 2, egress: { localNetworks: true } } as const;
