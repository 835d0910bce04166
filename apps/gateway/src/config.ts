import { DEFAULT_MAX_CONCURRENT_RUNS, DEFAULT_UPSTREAM_POLICY, PEER_WAKE_DELAY_MS, RUN_EVENT_FLUSH_MS, type UpstreamPolicy } from "@axiom-lattice/agent";
import {
  type EgressPolicy,
  type KeyringFromEnvironment,
  MAINTENANCE_INTERVAL_MS,
  REPLICA_PRESENCE_INTERVAL_MS,
  SCHEDULE_HEARTBEAT_MS,
  SecretKeyringError,
  THREAD_RUN_TTL_MS,
  egressPolicyFor,
  getReplicaId,
  keyringFromEnvironment,
  parseEgressAllowList,
} from "@axiom-lattice/core";
import { REPLICA_ROLES, type ReplicaRole } from "@axiom-lattice/protocols";
import { CONNECT_TIMEOUT_MS, IDLE_TIMEOUT_MS, POOL_MAX, STATEMENT_TIMEOUT_MS } from "@axiom-lattice/pg-stores";
import { z } from "zod";
import {
  DEFAULT_AFFINITY_GRACE_MS,
  DEFAULT_DB_STARTUP_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_OUTBOX_RETENTION_HOURS,
  DEFAULT_PORT,
  DEFAULT_RUN_EVENT_RETENTION_HOURS,
  DEFAULT_RUN_RETENTION_HOURS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_TENANT_MAX_QUEUED_MESSAGES,
  DEFAULT_TENANT_MAX_STREAMS,
  defaultTenantMaxRunSubmissions,
  DEFAULT_THREAD_TTL_SWEEP_MS,
  SSE_HEARTBEAT_MS,
  WEB_APP_RUN_RATE_LIMIT_PER_MINUTE,
  WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE,
} from "./defaults";
import { ConfigError } from "./configError";

export { ConfigError };

export interface GatewayConfig {
  /** `AXIOM_ROLE`: what this replica does (see {@link ReplicaRole}). */
  role: ReplicaRole;
  port: number;
  host: string;
  databaseUrl?: string;
  /** The database pool's size and timeouts, and how long startup waits for the database. */
  database: DatabaseSettings;
  /** This replica's identity: `AXIOM_REPLICA_ID`, else `hostname:pid`. */
  replicaId: string;
  /** `AXIOM_REPLICA_ID` is set: replicas have stable, distinct names, so affinity answers make sense. */
  replicaAffinity: boolean;
  affinityGraceMs: number;
  outboxRetentionHours: number;
  /** How long completed runs (their run records and messages) are kept; 0 keeps them forever. */
  runRetentionHours: number;
  /** Streams of runs on other replicas are followed through the run event log (`AXIOM_STREAM_RELAY`, default on); off: affinity_miss. */
  streamRelay: boolean;
  /** How long runs' logged events are kept (`AXIOM_RUN_EVENT_RETENTION_HOURS`); 0 keeps them until their thread is deleted. */
  runEventRetentionHours: number;
  /** How long a run's events wait to be logged together (`AXIOM_RUN_EVENT_FLUSH_MS`): followers on other replicas lag about this much. */
  runEventFlushMs: number;
  /**
   * How long a replica that enqueued a message takes to start its thread before it tells its peers
   * (`AXIOM_PEER_WAKE_DELAY_MS`); they are told only if it has not; worker replicas tell them at once.
   */
  peerWakeDelayMs: number;
  logLevel: string;
  /** `json`: one JSON object per line, for log collectors; `pretty`: pino-pretty's lines, for a person at a terminal. */
  logFormat: "json" | "pretty";
  /** How long a graceful shutdown may take before the process gives up waiting. */
  shutdownTimeoutMs: number;
  /** Threads this replica runs at once. */
  maxConcurrentRuns: number;
  /** TTL of a thread's run lease and of a message's claim: how soon peers take over from a dead replica. */
  runLeaseMs: number;
  /** How often a running schedule fire heartbeats; a fire silent for three of these is requeued. */
  scheduleHeartbeatMs: number;
  /** The maintenance leader's pass (and followers' bids); its lease lives three of these. */
  maintenanceIntervalMs: number;
  /** How often the maintenance leader deletes threads whose TTL ran out. */
  threadTtlSweepMs: number;
  auth: AuthConfig;
  /** Origins allowed to call the API from a browser; none (same-origin only) by default. */
  corsOrigins: string[];
  /** Where clients reach the gateway (`AXIOM_PUBLIC_URL`), as agent cards name it; unset, each card names the address its request came to. */
  publicUrl: string | undefined;
  /** Runs one tenant may create per minute on this replica; 0 means no limit. */
  runRateLimitPerMinute: number;
  /** Runs one end user of a web app may create per minute on this replica; 0 means no limit. */
  webAppRunRateLimitPerMinute: number;
  /** New visitor tokens one client address may take per `anonymous` web app and minute on this replica; 0 means no limit. */
  webAppVisitorRateLimitPerMinute: number;
  /**
   * Serve the chat page at `/playground` (`AXIOM_PLAYGROUND`): on by default, off by default when
   * `NODE_ENV=production`, where a page nobody asked for is surface nobody watches.
   */
  playground: boolean;
  /** The bearer token `GET /metrics` asks for (`AXIOM_METRICS_TOKEN`); unset, it is public, whatever AUTH_REQUIRED says. */
  metricsToken: string | undefined;
  /** How often this replica announces its presence (`GET /api/cluster`); it lapses after three missed. */
  presenceIntervalMs: number;
  /** Fail orphaned `in_progress` tasks (no replica runs them) at startup and on every maintenance pass. */
  taskOrphanRecovery: boolean;
  /** A comment line on quiet SSE streams this often, so proxies keep them open. */
  sseHeartbeatMs: number;
  /**
   * Each model API request's timeout and the retries after a failed one, and the egress policy every
   * URL a tenant names is held to (model base URLs, MCP server urls): `AXIOM_UPSTREAM_ALLOW`, and
   * with authentication on no internal addresses unless listed.
   */
  upstream: UpstreamPolicy;
  /** The key of the built-in `openai` model provider for assistants whose config (and catalog provider) has none (`OPENAI_API_KEY`). */
  openAiApiKey?: string;
  /**
   * The operator's `langgraph.json` (`AXIOM_LANGGRAPH_CONFIG`): the graphs this gateway serves beside
   * the built-in ReAct agent, read by every replica at start. Unset: the ReAct agent alone.
   */
  langgraphConfig?: string;
  /**
   * The commands a tenant's stdio MCP server may run on this host (`AXIOM_MCP_STDIO_ALLOW`; `*`: any).
   * Unset: any while authentication is off (one trusted user), none once it is on, where a tenant's
   * admin must not run commands on a host shared with other tenants.
   */
  mcpStdioAllow: "any" | readonly string[];
  /** Seals stored secrets (provider and assistant keys, MCP headers and env): `LATTICE_ENCRYPTION_KEY`, else the public development key. */
  secrets: KeyringFromEnvironment;
  /** What one tenant may hold, so no tenant starves the others (see {@link TenantLimits}). */
  tenantLimits: TenantLimits;
}

/**
 * Per-tenant limits. Unset, they protect tenants from each other once authentication is on, and
 * leave the one user of a gateway without authentication the whole replica.
 */
export interface TenantLimits {
  /** Run slots of this replica one tenant holds at once (`AXIOM_TENANT_MAX_CONCURRENT_RUNS`): half of them, rounded up. */
  maxConcurrentRuns: number;
  /** Queued (pending plus processing) messages per tenant across the cluster; 0: no limit. */
  maxQueuedMessages: number;
  /** Open streams (runs, resume_stream, room and task events) per tenant on this replica; 0: no limit. */
  maxStreams: number;
  /** Run submissions (lookups and queueing of a run's message) per tenant under way on this replica; 0: no limit. */
  maxRunSubmissions: number;
}

/**
 * A replica holds up to `poolMax` pooled connections plus the pg-stores LISTEN connections (3). The
 * timeouts bound every wait on the database, so an outage answers 503 rather than hanging.
 */
export interface DatabaseSettings {
  /** `DATABASE_POOL_MAX`: pooled connections of this replica. */
  poolMax: number;
  /** `DATABASE_CONNECT_TIMEOUT_MS`: opening a connection, or waiting for a free one. */
  connectTimeoutMs: number;
  /** `DATABASE_STATEMENT_TIMEOUT_MS`: a statement's longest run (0: none; migrations are exempt). */
  statementTimeoutMs: number;
  /** `DATABASE_IDLE_TIMEOUT_MS`: an idle pooled connection is closed after this. */
  idleTimeoutMs: number;
  /** `AXIOM_DB_STARTUP_TIMEOUT_MS`: how long startup waits for the database before giving up. */
  startupTimeoutMs: number;
  /** `DATABASE_LISTEN_URL`: a direct connection for LISTEN and migrations; set, it declares `DATABASE_URL` a transaction pooler (PgBouncer). */
  listenUrl?: string;
}

/** How requests prove who they are. Without auth the tenant is the `x-tenant-id` header. */
export type AuthConfig =
  | { required: false }
  | {
      required: true;
      /** Where the verification key comes from: a shared HS256 secret, a JWKS URL or a PEM public key file. */
      key: { secret: string } | { jwksUrl: string } | { publicKeyFile: string };
      issuer?: string;
      audience?: string;
      /** Accept tokens without `exp` (`AUTH_ALLOW_NO_EXPIRY`); by default a token that never expires is refused. */
      allowNoExpiry: boolean;
    };

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

const flag = z.enum(["true", "false"], { error: "must be true or false" }).default("false").transform((value) => value === "true");

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const postgresUrl = z
  .string()
  .trim()
  .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
  .optional();

const envSchema = z.object({
  AXIOM_ROLE: z.enum(REPLICA_ROLES, { error: `must be one of ${REPLICA_ROLES.join(", ")}` }).default("all"),
  PORT: integer(0, 65535).default(DEFAULT_PORT),
  HOST: z.string().trim().min(1, "must not be empty").default(DEFAULT_HOST),
  DATABASE_URL: postgresUrl,
  DATABASE_LISTEN_URL: postgresUrl,
  // The database pool and startup (see DatabaseSettings).
  DATABASE_POOL_MAX: integer(1, 1_000).default(POOL_MAX),
  DATABASE_CONNECT_TIMEOUT_MS: integer(100, 600_000).default(CONNECT_TIMEOUT_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(0, 86_400_000).default(STATEMENT_TIMEOUT_MS),
  DATABASE_IDLE_TIMEOUT_MS: integer(1_000, 86_400_000).default(IDLE_TIMEOUT_MS),
  AXIOM_DB_STARTUP_TIMEOUT_MS: integer(0, 86_400_000).default(DEFAULT_DB_STARTUP_TIMEOUT_MS),
  AXIOM_REPLICA_ID: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:@-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : @ -")
    .optional(),
  AXIOM_AFFINITY_GRACE_MS: integer(0, 60_000).default(DEFAULT_AFFINITY_GRACE_MS),
  // Retention accepts anything: 0, negative or non-integer values disable it (documented behaviour).
  AXIOM_OUTBOX_RETENTION_HOURS: z.string().optional(),
  AXIOM_RUN_RETENTION_HOURS: z.string().optional(),
  AXIOM_RUN_EVENT_RETENTION_HOURS: z.string().optional(),
  AXIOM_STREAM_RELAY: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  AXIOM_RUN_EVENT_FLUSH_MS: integer(10, 60_000).default(RUN_EVENT_FLUSH_MS),
  AXIOM_PEER_WAKE_DELAY_MS: integer(0, 60_000).default(PEER_WAKE_DELAY_MS),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"], { error: "must be json or pretty" }).default("json"),
  AXIOM_SHUTDOWN_TIMEOUT_MS: integer(100, 600_000).default(DEFAULT_SHUTDOWN_TIMEOUT_MS),
  AXIOM_MAX_CONCURRENT_RUNS: integer(1, 10_000).default(DEFAULT_MAX_CONCURRENT_RUNS),
  AXIOM_RUN_LEASE_MS: integer(1_000, 600_000).default(THREAD_RUN_TTL_MS),
  AXIOM_SCHEDULE_HEARTBEAT_MS: integer(100, 600_000).default(SCHEDULE_HEARTBEAT_MS),
  AXIOM_MAINTENANCE_INTERVAL_MS: integer(100, 600_000).default(MAINTENANCE_INTERVAL_MS),
  AXIOM_THREAD_TTL_SWEEP_MS: integer(100, 3_600_000).default(DEFAULT_THREAD_TTL_SWEEP_MS),
  AUTH_REQUIRED: flag,
  // HS256 wants a key of at least 256 bits.
  AUTH_TOKEN_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  AUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  AUTH_PUBLIC_KEY_FILE: z.string().trim().min(1).optional(),
  AUTH_ISSUER: z.string().trim().min(1).optional(),
  AUTH_AUDIENCE: z.string().trim().min(1).optional(),
  AUTH_ALLOW_NO_EXPIRY: flag,
  AXIOM_ALLOW_INSECURE: flag,
  AXIOM_PUBLIC_URL: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  AXIOM_CORS_ORIGINS: z
    .string()
    .transform((list) => list.split(",").map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.url({ protocol: /^https?$/ }).regex(/^[^/]+\/\/[^/]+$/, "must be origins (scheme://host[:port]), comma-separated")))
    .default([]),
  AXIOM_RUN_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).default(0),
  AXIOM_WEB_APP_RUN_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).default(WEB_APP_RUN_RATE_LIMIT_PER_MINUTE),
  AXIOM_WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).default(WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE),
  AXIOM_PLAYGROUND: z.enum(["on", "off"], { error: "must be on or off" }).optional(),
  AXIOM_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  AXIOM_PRESENCE_INTERVAL_MS: integer(100, 600_000).default(REPLICA_PRESENCE_INTERVAL_MS),
  AXIOM_TASK_ORPHAN_RECOVERY: flag,
  AXIOM_SSE_HEARTBEAT_MS: integer(100, 600_000).default(SSE_HEARTBEAT_MS),
  AXIOM_UPSTREAM_TIMEOUT_MS: integer(100, 600_000).default(DEFAULT_UPSTREAM_POLICY.timeoutMs),
  AXIOM_UPSTREAM_MAX_RETRIES: integer(0, 10).default(DEFAULT_UPSTREAM_POLICY.maxRetries),
  AXIOM_UPSTREAM_ALLOW: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  AXIOM_LANGGRAPH_CONFIG: z.string().trim().min(1).optional(),
  AXIOM_MCP_STDIO_ALLOW: z
    .string()
    .transform((list) => list.split(",").map((command) => command.trim()).filter(Boolean))
    .optional(),
  // Fairness between tenants (see tenantLimitsConfig).
  AXIOM_TENANT_MAX_CONCURRENT_RUNS: integer(1, 10_000).optional(),
  AXIOM_TENANT_MAX_QUEUED_MESSAGES: integer(0, 10_000_000).optional(),
  AXIOM_TENANT_MAX_STREAMS: integer(0, 1_000_000).optional(),
  AXIOM_TENANT_MAX_RUN_SUBMISSIONS: integer(0, 10_000).optional(),
});

/** A retention in hours; 0 means disabled (unset → `defaultHours`; 0, negative or non-integer → 0). */
export function parseRetentionHours(raw: string | undefined, defaultHours: number): number {
  if (raw === undefined || raw.trim() === "") return defaultHours;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** Reads and validates the gateway configuration; throws {@link ConfigError} naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const e = parseEnv(env);
  const auth = authConfig(e);
  if (!auth.required && !e.AXIOM_ALLOW_INSECURE && !LOOPBACK_HOSTS.has(e.HOST)) {
    throw new ConfigError("HOST", `serving ${e.HOST} needs AUTH_REQUIRED=true (or AXIOM_ALLOW_INSECURE=true, for a trusted network only)`);
  }
  if (e.DATABASE_LISTEN_URL && !e.DATABASE_URL) {
    throw new ConfigError("DATABASE_LISTEN_URL", "is the direct connection beside DATABASE_URL (the pooler's); set DATABASE_URL too");
  }
  refuseRoleWithoutPeers(e);
  return {
    role: e.AXIOM_ROLE,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    database: {
      poolMax: e.DATABASE_POOL_MAX,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleTimeoutMs: e.DATABASE_IDLE_TIMEOUT_MS,
      startupTimeoutMs: e.AXIOM_DB_STARTUP_TIMEOUT_MS,
      listenUrl: e.DATABASE_LISTEN_URL,
    },
    replicaId: e.AXIOM_REPLICA_ID ?? getReplicaId(),
    replicaAffinity: e.AXIOM_REPLICA_ID !== undefined,
    affinityGraceMs: e.AXIOM_AFFINITY_GRACE_MS,
    outboxRetentionHours: parseRetentionHours(e.AXIOM_OUTBOX_RETENTION_HOURS, DEFAULT_OUTBOX_RETENTION_HOURS),
    runRetentionHours: parseRetentionHours(e.AXIOM_RUN_RETENTION_HOURS, DEFAULT_RUN_RETENTION_HOURS),
    streamRelay: e.AXIOM_STREAM_RELAY === "on",
    runEventRetentionHours: parseRetentionHours(e.AXIOM_RUN_EVENT_RETENTION_HOURS, DEFAULT_RUN_EVENT_RETENTION_HOURS),
    runEventFlushMs: e.AXIOM_RUN_EVENT_FLUSH_MS,
    peerWakeDelayMs: e.AXIOM_PEER_WAKE_DELAY_MS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    shutdownTimeoutMs: e.AXIOM_SHUTDOWN_TIMEOUT_MS,
    maxConcurrentRuns: e.AXIOM_MAX_CONCURRENT_RUNS,
    runLeaseMs: e.AXIOM_RUN_LEASE_MS,
    scheduleHeartbeatMs: e.AXIOM_SCHEDULE_HEARTBEAT_MS,
    maintenanceIntervalMs: e.AXIOM_MAINTENANCE_INTERVAL_MS,
    threadTtlSweepMs: e.AXIOM_THREAD_TTL_SWEEP_MS,
    auth,
    corsOrigins: e.AXIOM_CORS_ORIGINS,
    publicUrl: e.AXIOM_PUBLIC_URL,
    runRateLimitPerMinute: e.AXIOM_RUN_RATE_LIMIT_PER_MINUTE,
    webAppRunRateLimitPerMinute: e.AXIOM_WEB_APP_RUN_RATE_LIMIT_PER_MINUTE,
    webAppVisitorRateLimitPerMinute: e.AXIOM_WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE,
    playground: (e.AXIOM_PLAYGROUND ?? (env.NODE_ENV === "production" ? "off" : "on")) === "on",
    metricsToken: e.AXIOM_METRICS_TOKEN,
    presenceIntervalMs: e.AXIOM_PRESENCE_INTERVAL_MS,
    taskOrphanRecovery: e.AXIOM_TASK_ORPHAN_RECOVERY,
    sseHeartbeatMs: e.AXIOM_SSE_HEARTBEAT_MS,
    upstream: { timeoutMs: e.AXIOM_UPSTREAM_TIMEOUT_MS, maxRetries: e.AXIOM_UPSTREAM_MAX_RETRIES, egress: egressPolicy(e.AXIOM_UPSTREAM_ALLOW, auth.required) },
    mcpStdioAllow: mcpStdioAllowList(e.AXIOM_MCP_STDIO_ALLOW, auth.required),
    // Empty is unset, as the OpenAI SDK reads it.
    ...(e.OPENAI_API_KEY ? { openAiApiKey: e.OPENAI_API_KEY } : {}),
    ...(e.AXIOM_LANGGRAPH_CONFIG ? { langgraphConfig: e.AXIOM_LANGGRAPH_CONFIG } : {}),
    secrets: secretsConfig(env),
    tenantLimits: tenantLimitsConfig(e, auth.required),
  };
}

/**
 * `api` and `worker` replicas meet only through PostgreSQL: in memory, an `api` replica's runs would
 * never run, a worker's never be asked for. An `api` replica streams every run from the run event log,
 * which workers write only with the stream relay on.
 */
function refuseRoleWithoutPeers(e: z.output<typeof envSchema>): void {
  if (e.AXIOM_ROLE === "all") return;
  if (!e.DATABASE_URL) {
    throw new ConfigError(
      "AXIOM_ROLE",
      `${e.AXIOM_ROLE} replicas share runs with their peers through PostgreSQL, and the in-memory stores are this process's alone: set DATABASE_URL, or AXIOM_ROLE=all for one process`,
    );
  }
  if (e.AXIOM_STREAM_RELAY === "off") {
    throw new ConfigError("AXIOM_STREAM_RELAY", "api replicas stream the runs workers execute from the run event log the relay writes: leave it on, or set AXIOM_ROLE=all");
  }
}

/**
 * With authentication on, no tenant may hold every run slot (half of them, rounded up, leaves the
 * rest to others even with one slot: then the cap is that slot, and slots still go round fairly), a
 * backlog beyond {@link DEFAULT_TENANT_MAX_QUEUED_MESSAGES}, or more than
 * {@link DEFAULT_TENANT_MAX_STREAMS} streams, nor more run submissions under way at once than
 * {@link defaultTenantMaxRunSubmissions} of the pool. Without it there is one user: nothing to share.
 */
function tenantLimitsConfig(e: z.output<typeof envSchema>, authRequired: boolean): TenantLimits {
  const slots = e.AXIOM_MAX_CONCURRENT_RUNS;
  const maxConcurrentRuns = e.AXIOM_TENANT_MAX_CONCURRENT_RUNS ?? (authRequired ? Math.ceil(slots / 2) : slots);
  if (maxConcurrentRuns > slots) {
    throw new ConfigError("AXIOM_TENANT_MAX_CONCURRENT_RUNS", `must be at most AXIOM_MAX_CONCURRENT_RUNS (${slots})`);
  }
  return {
    maxConcurrentRuns,
    maxQueuedMessages: e.AXIOM_TENANT_MAX_QUEUED_MESSAGES ?? (authRequired ? DEFAULT_TENANT_MAX_QUEUED_MESSAGES : 0),
    maxStreams: e.AXIOM_TENANT_MAX_STREAMS ?? (authRequired ? DEFAULT_TENANT_MAX_STREAMS : 0),
    maxRunSubmissions: e.AXIOM_TENANT_MAX_RUN_SUBMISSIONS ?? (authRequired ? defaultTenantMaxRunSubmissions(e.DATABASE_POOL_MAX) : 0),
  };
}

/** The keyring for stored secrets; a malformed or (in production) missing key refuses to start. */
export function secretsConfig(env: NodeJS.ProcessEnv = process.env): KeyringFromEnvironment {
  try {
    return keyringFromEnvironment(env);
  } catch (error) {
    if (error instanceof SecretKeyringError) throw new ConfigError("LATTICE_ENCRYPTION_KEY", error.message);
    throw error;
  }
}

function mcpStdioAllowList(listed: string[] | undefined, authRequired: boolean): GatewayConfig["mcpStdioAllow"] {
  if (listed === undefined) return authRequired ? [] : "any";
  return listed.includes("*") ? "any" : listed;
}

function egressPolicy(allowList: string | undefined, authRequired: boolean): EgressPolicy {
  try {
    return egressPolicyFor({ allow: parseEgressAllowList(allowList), authRequired });
  } catch (error) {
    throw new ConfigError("AXIOM_UPSTREAM_ALLOW", `${(error as Error).message}; list hosts, host:port or CIDRs, comma-separated`);
  }
}

/** What `token:issue` signs with: the HS256 secret the gateway verifies with, and the claims it checks. */
export function tokenSigningConfig(env: NodeJS.ProcessEnv = process.env): { secret: string; issuer?: string; audience?: string } {
  const e = parseEnv(env);
  const secret = e.AUTH_TOKEN_SECRET ?? e.JWT_SECRET;
  if (secret === undefined) throw new ConfigError("AUTH_TOKEN_SECRET", "token:issue signs with AUTH_TOKEN_SECRET (or JWT_SECRET); set it");
  return { secret, issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE };
}

function parseEnv(env: NodeJS.ProcessEnv): z.output<typeof envSchema> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue.path[0] ?? "environment"), issue.message);
  }
  return parsed.data;
}

function authConfig(e: z.output<typeof envSchema>): AuthConfig {
  if (!e.AUTH_REQUIRED) return { required: false };
  const secret = e.AUTH_TOKEN_SECRET ?? e.JWT_SECRET;
  const sources = [secret, e.AUTH_JWKS_URL, e.AUTH_PUBLIC_KEY_FILE].filter((source) => source !== undefined);
  if (sources.length !== 1) {
    throw new ConfigError(
      "AUTH_TOKEN_SECRET",
      "AUTH_REQUIRED=true needs exactly one key: AUTH_TOKEN_SECRET (or JWT_SECRET), AUTH_JWKS_URL or AUTH_PUBLIC_KEY_FILE",
    );
  }
  const key = secret !== undefined ? { secret } : e.AUTH_JWKS_URL !== undefined ? { jwksUrl: e.AUTH_JWKS_URL } : { publicKeyFile: e.AUTH_PUBLIC_KEY_FILE! };
  return { required: true, key, issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE, allowNoExpiry: e.AUTH_ALLOW_NO_EXPIRY };
}
