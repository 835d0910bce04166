import { describe, expect, it } from "vitest";
import { ConfigError, type GatewayConfig, loadConfig, parseRetentionHours } from "../src";

describe("loadConfig", () => {
  it("defaults to port 4001, loopback, in-memory stores", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      role: "all",
      port: 4001,
      host: "127.0.0.1",
      databaseUrl: undefined,
      affinityGraceMs: 500,
      runEventFlushMs: 150,
      outboxRetentionHours: 24,
      runRetentionHours: 168,
      scheduleHeartbeatMs: 2_000,
      maintenanceIntervalMs: 2_000,
      threadTtlSweepMs: 5_000,
      taskOrphanRecovery: false,
    });
  });

  it("reads the database pool's size and timeouts and the startup wait, with production defaults", () => {
    expect(loadConfig({}).database).toEqual({ poolMax: 10, connectTimeoutMs: 5_000, statementTimeoutMs: 15_000, idleTimeoutMs: 30_000, startupTimeoutMs: 60_000 });
    expect(
      loadConfig({
        DATABASE_POOL_MAX: "20",
        DATABASE_CONNECT_TIMEOUT_MS: "2000",
        DATABASE_STATEMENT_TIMEOUT_MS: "0",
        DATABASE_IDLE_TIMEOUT_MS: "60000",
        AXIOM_DB_STARTUP_TIMEOUT_MS: "0",
      }).database,
    ).toEqual({ poolMax: 20, connectTimeoutMs: 2_000, statementTimeoutMs: 0, idleTimeoutMs: 60_000, startupTimeoutMs: 0 });
  });

  it("switches task orphan recovery on with AXIOM_TASK_ORPHAN_RECOVERY=true", () => {
    expect(loadConfig({ AXIOM_TASK_ORPHAN_RECOVERY: "true" }).taskOrphanRecovery).toBe(true);
    expect(loadConfig({ AXIOM_TASK_ORPHAN_RECOVERY: "false" }).taskOrphanRecovery).toBe(false);
  });

  it("reads the schedule heartbeat and the maintenance interval", () => {
    expect(loadConfig({ AXIOM_SCHEDULE_HEARTBEAT_MS: "500", AXIOM_MAINTENANCE_INTERVAL_MS: "250" })).toMatchObject({
      scheduleHeartbeatMs: 500,
      maintenanceIntervalMs: 250,
    });
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "-1"],
    ["DATABASE_URL", "mysql://x"],
    ["DATABASE_LISTEN_URL", "mysql://x"],
    ["AXIOM_REPLICA_ID", "has space"],
    ["AXIOM_REPLICA_ID", "r".repeat(129)],
    ["AXIOM_AFFINITY_GRACE_MS", "soon"],
    ["LOG_LEVEL", "loud"],
    ["AXIOM_SCHEDULE_HEARTBEAT_MS", "99"],
    ["AXIOM_MAINTENANCE_INTERVAL_MS", "often"],
    ["AXIOM_THREAD_TTL_SWEEP_MS", "50"],
    ["AXIOM_TASK_ORPHAN_RECOVERY", "yes"],
    ["DATABASE_POOL_MAX", "0"],
    ["DATABASE_CONNECT_TIMEOUT_MS", "fast"],
    ["DATABASE_IDLE_TIMEOUT_MS", "10"],
    ["AXIOM_STREAM_RELAY", "false"],
    ["AXIOM_RUN_EVENT_FLUSH_MS", "9"],
    ["AXIOM_RUN_EVENT_FLUSH_MS", "60001"],
    ["AXIOM_RUN_EVENT_FLUSH_MS", "soon"],
    ["AXIOM_PEER_WAKE_DELAY_MS", "-1"],
    ["AXIOM_PEER_WAKE_DELAY_MS", "60001"],
    ["AXIOM_PLAYGROUND", "yes"],
    ["AXIOM_ROLE", "scheduler"],
    ["AXIOM_ROLE", "API"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  describe("AXIOM_ROLE", () => {
    const DATABASE_URL = "postgres://app@db:5432/lattice";

    it.each(["all", "api", "worker"])("reads %s on PostgreSQL", (role) => {
      expect(loadConfig({ AXIOM_ROLE: role, DATABASE_URL }).role).toBe(role);
    });

    it.each(["api", "worker"])("refuses %s on the in-memory stores, saying why and what to do", (role) => {
      expect(() => loadConfig({ AXIOM_ROLE: role })).toThrow(ConfigError);
      expect(() => loadConfig({ AXIOM_ROLE: role })).toThrow(
        new RegExp(`^AXIOM_ROLE: ${role} replicas share runs .* through PostgreSQL, .* in-memory .*: set DATABASE_URL, or AXIOM_ROLE=all for one process$`),
      );
    });

    it.each(["api", "worker"])("refuses %s without the stream relay, which carries the workers' streams to the api replicas", (role) => {
      expect(() => loadConfig({ AXIOM_ROLE: role, DATABASE_URL, AXIOM_STREAM_RELAY: "off" })).toThrow(/^AXIOM_STREAM_RELAY: api replicas stream the runs workers execute/);
      expect(loadConfig({ AXIOM_ROLE: "all", DATABASE_URL, AXIOM_STREAM_RELAY: "off" })).toMatchObject({ role: "all", streamRelay: false });
    });
  });

  it("reads DATABASE_LISTEN_URL, the direct connection beside a pooler, only with DATABASE_URL", () => {
    const direct = "postgres://app@db:5432/lattice";
    expect(loadConfig({ DATABASE_URL: "postgres://app@pgbouncer:6432/lattice", DATABASE_LISTEN_URL: direct })).toMatchObject({ database: { listenUrl: direct } });
    expect(loadConfig({ DATABASE_URL: direct }).database.listenUrl).toBeUndefined();
    expect(() => loadConfig({ DATABASE_LISTEN_URL: direct })).toThrow(/^DATABASE_LISTEN_URL: .*set DATABASE_URL too/);
  });

  it("serves the playground page unless told not to, and in production only when told to", () => {
    expect(loadConfig({}).playground).toBe(true);
    expect(loadConfig({ AXIOM_PLAYGROUND: "off" }).playground).toBe(false);
    expect(loadConfig({ NODE_ENV: "production", LATTICE_ENCRYPTION_KEY: `v1:${Buffer.alloc(32, 1).toString("base64")}` }).playground).toBe(false);
    expect(loadConfig({ NODE_ENV: "production", LATTICE_ENCRYPTION_KEY: `v1:${Buffer.alloc(32, 1).toString("base64")}`, AXIOM_PLAYGROUND: "on" }).playground).toBe(true);
  });

  it("treats retention 0, negative or non-integer as disabled", () => {
    expect(parseRetentionHours(undefined, 24)).toBe(24);
    expect(parseRetentionHours(" ", 168)).toBe(168);
    expect(parseRetentionHours("48", 24)).toBe(48);
    expect(parseRetentionHours("0", 24)).toBe(0);
    expect(parseRetentionHours("-3", 24)).toBe(0);
    expect(parseRetentionHours("1.5", 24)).toBe(0);
    expect(parseRetentionHours("soon", 24)).toBe(0);
  });

  it.each<[string, string, Partial<GatewayConfig>]>([
    ["AXIOM_RUN_RETENTION_HOURS", "72", { runRetentionHours: 72, outboxRetentionHours: 24 }],
    ["AXIOM_RUN_RETENTION_HOURS", "0", { runRetentionHours: 0 }],
    ["AXIOM_RUN_RETENTION_HOURS", "-1", { runRetentionHours: 0 }],
    ["AXIOM_RUN_RETENTION_HOURS", "2.5", { runRetentionHours: 0 }],
    ["AXIOM_RUN_RETENTION_HOURS", "a week", { runRetentionHours: 0 }],
    ["AXIOM_OUTBOX_RETENTION_HOURS", "6", { outboxRetentionHours: 6, runRetentionHours: 168 }],
    ["AXIOM_RUN_EVENT_RETENTION_HOURS", "2", { runEventRetentionHours: 2, runRetentionHours: 168 }],
    ["AXIOM_RUN_EVENT_RETENTION_HOURS", "0", { runEventRetentionHours: 0 }],
    ["AXIOM_STREAM_RELAY", "off", { streamRelay: false, runEventRetentionHours: 24 }],
    ["AXIOM_STREAM_RELAY", "on", { streamRelay: true }],
    ["AXIOM_RUN_EVENT_FLUSH_MS", "1000", { runEventFlushMs: 1_000, streamRelay: true }],
  ])("reads %s=%s on its own", (name, value, expected) => {
    expect(loadConfig({ [name]: value })).toMatchObject(expected);
  });

  describe("security settings", () => {
    const SECRET = "a-config-secret-of-at-least-32-chars!!";

    it("is off by default, with no browser origins and no rate limit", () => {
      expect(loadConfig({})).toMatchObject({ auth: { required: false }, corsOrigins: [], runRateLimitPerMinute: 0 });
    });

    it("reads an HS256 secret (or JWT_SECRET), an issuer and an audience", () => {
      expect(loadConfig({ AUTH_REQUIRED: "true", JWT_SECRET: SECRET, AUTH_ISSUER: "idp", AUTH_AUDIENCE: "lattice" }).auth).toEqual({
        required: true,
        key: { secret: SECRET },
        issuer: "idp",
        audience: "lattice",
        allowNoExpiry: false,
      });
      expect(loadConfig({ AUTH_REQUIRED: "true", JWT_SECRET: SECRET, AUTH_ALLOW_NO_EXPIRY: "true" }).auth).toMatchObject({ allowNoExpiry: true });
    });

    it.each<[Record<string, string>, string]>([
      [{ AUTH_REQUIRED: "true" }, "AUTH_TOKEN_SECRET"],
      [{ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AUTH_JWKS_URL: "https://idp.test/jwks" }, "AUTH_TOKEN_SECRET"],
      [{ AUTH_REQUIRED: "yes" }, "AUTH_REQUIRED"],
      [{ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: "short" }, "AUTH_TOKEN_SECRET"],
      [{ AUTH_REQUIRED: "true", AUTH_JWKS_URL: "ftp://idp.test/jwks" }, "AUTH_JWKS_URL"],
      [{ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AUTH_ALLOW_NO_EXPIRY: "yes" }, "AUTH_ALLOW_NO_EXPIRY"],
      [{ HOST: "0.0.0.0" }, "HOST"],
      [{ AXIOM_CORS_ORIGINS: "https://app.test/path" }, "AXIOM_CORS_ORIGINS"],
      [{ AXIOM_RUN_RATE_LIMIT_PER_MINUTE: "many" }, "AXIOM_RUN_RATE_LIMIT_PER_MINUTE"],
    ])("refuses %j, naming %s", (env, name) => {
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${name}:`));
    });

    it("serves other machines only with authentication, or when told the network is trusted", () => {
      expect(loadConfig({ HOST: "0.0.0.0", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET }).host).toBe("0.0.0.0");
      expect(loadConfig({ HOST: "0.0.0.0", AXIOM_ALLOW_INSECURE: "true" }).host).toBe("0.0.0.0");
    });

    it("lets stdio MCP servers run any command without authentication, none with it unless AXIOM_MCP_STDIO_ALLOW lists them", () => {
      expect(loadConfig({}).mcpStdioAllow).toBe("any");
      expect(loadConfig({ AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET }).mcpStdioAllow).toEqual([]);
      const listed = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AXIOM_MCP_STDIO_ALLOW: " /usr/bin/node , npx ," };
      expect(loadConfig(listed).mcpStdioAllow).toEqual(["/usr/bin/node", "npx"]);
      expect(loadConfig({ ...listed, AXIOM_MCP_STDIO_ALLOW: "*" }).mcpStdioAllow).toBe("any");
    });

    it("allows local networks as egress targets without authentication, none with it unless AXIOM_UPSTREAM_ALLOW lists them", () => {
      expect(loadConfig({}).upstream.egress).toEqual({ localNetworks: true, allow: undefined });
      const authOn = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET };
      expect(loadConfig(authOn).upstream.egress).toEqual({ localNetworks: false, allow: undefined });
      expect(loadConfig({ ...authOn, AXIOM_UPSTREAM_ALLOW: "127.0.0.1:11434, 10.0.0.0/8, ollama.internal" }).upstream.egress.allow).toEqual([
        { kind: "address", address: "127.0.0.1", port: 11434 },
        { kind: "cidr", range: [expect.anything(), 8] },
        { kind: "name", name: "ollama.internal", port: undefined },
      ]);
    });

    it("refuses a malformed AXIOM_UPSTREAM_ALLOW entry at startup, naming it", () => {
      expect(() => loadConfig({ AXIOM_UPSTREAM_ALLOW: "127.0.0.1, 10.0.0.0/40" })).toThrow(
        'AXIOM_UPSTREAM_ALLOW: "10.0.0.0/40" is not a host, host:port or CIDR; list hosts, host:port or CIDRs, comma-separated',
      );
    });

    it("limits each tenant with authentication on (half the run slots, 1000 queued messages, 100 streams, a quarter of the pool's submissions), not without it", () => {
      const auth = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET };
      expect(loadConfig({}).tenantLimits).toEqual({ maxConcurrentRuns: 8, maxQueuedMessages: 0, maxStreams: 0, maxRunSubmissions: 0 });
      expect(loadConfig(auth).tenantLimits).toEqual({ maxConcurrentRuns: 4, maxQueuedMessages: 1_000, maxStreams: 100, maxRunSubmissions: 2 });
      expect(loadConfig({ ...auth, AXIOM_MAX_CONCURRENT_RUNS: "5" }).tenantLimits.maxConcurrentRuns).toBe(3);
      expect(loadConfig({ ...auth, AXIOM_MAX_CONCURRENT_RUNS: "1" }).tenantLimits.maxConcurrentRuns).toBe(1);
      expect(loadConfig({ ...auth, DATABASE_POOL_MAX: "40" }).tenantLimits.maxRunSubmissions).toBe(10);
      expect(loadConfig({ ...auth, DATABASE_POOL_MAX: "3" }).tenantLimits.maxRunSubmissions).toBe(2);
      const set = { AXIOM_TENANT_MAX_CONCURRENT_RUNS: "2", AXIOM_TENANT_MAX_QUEUED_MESSAGES: "0", AXIOM_TENANT_MAX_STREAMS: "7", AXIOM_TENANT_MAX_RUN_SUBMISSIONS: "3" };
      expect(loadConfig({ ...auth, ...set }).tenantLimits).toEqual({ maxConcurrentRuns: 2, maxQueuedMessages: 0, maxStreams: 7, maxRunSubmissions: 3 });
      expect(loadConfig(set).tenantLimits).toEqual({ maxConcurrentRuns: 2, maxQueuedMessages: 0, maxStreams: 7, maxRunSubmissions: 3 });
      expect(() => loadConfig({ AXIOM_TENANT_MAX_CONCURRENT_RUNS: "9" })).toThrow(/AXIOM_TENANT_MAX_CONCURRENT_RUNS: must be at most AXIOM_MAX_CONCURRENT_RUNS \(8\)/);
      expect(() => loadConfig({ AXIOM_TENANT_MAX_CONCURRENT_RUNS: "0" })).toThrow(/AXIOM_TENANT_MAX_CONCURRENT_RUNS/);
      expect(() => loadConfig({ AXIOM_TENANT_MAX_STREAMS: "-1" })).toThrow(/AXIOM_TENANT_MAX_STREAMS/);
      expect(() => loadConfig({ AXIOM_TENANT_MAX_RUN_SUBMISSIONS: "1.5" })).toThrow(/AXIOM_TENANT_MAX_RUN_SUBMISSIONS/);
    });

    it("reads browser origins as a comma-separated list", () => {
      expect(loadConfig({ AXIOM_CORS_ORIGINS: "https://app.test, http://localhost:5173" }).corsOrigins).toEqual(["https://app.test", "http://localhost:5173"]);
    });
  });

  describe("LATTICE_ENCRYPTION_KEY", () => {
    const KEY = Buffer.alloc(32, 7).toString("base64");

    it("reads a versioned keyring, the first entry current; unset, the development key", () => {
      expect(loadConfig({ LATTICE_ENCRYPTION_KEY: `v2:${KEY},v1:${Buffer.alloc(32, 1).toString("base64")}` }).secrets).toMatchObject({
        development: false,
        keyring: { currentVersion: "v2" },
      });
      expect(loadConfig({}).secrets).toMatchObject({ development: true, keyring: { currentVersion: "dev" } });
    });

    it.each([
      [{ LATTICE_ENCRYPTION_KEY: "v1:short" }, /must be 32 bytes/],
      [{ NODE_ENV: "production" }, /must be set when NODE_ENV=production/],
    ])("refuses %j", (env, message) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/^LATTICE_ENCRYPTION_KEY:/);
      expect(() => loadConfig(env)).toThrow(message);
    });

    it("starts in production with a key", () => {
      expect(loadConfig({ NODE_ENV: "production", LATTICE_ENCRYPTION_KEY: `v1:${KEY}` }).secrets.development).toBe(false);
    });
  });
});
