#!/usr/bin/env node
import { parseArgs } from "node:util";
import type { TaskRecoveryResult } from "@axiom-lattice/agent";
import type { ResealSummary, StoredSecretKind } from "@axiom-lattice/pg-stores";
import type { ReplicaPresence } from "@axiom-lattice/protocols";
import { SCOPES, type Scope } from "./auth/principal";
import { ConfigError } from "./configError";
import { GATEWAY_VERSION } from "./version";

/** What the commands run, loaded once one runs (after its arguments were read). */
const commandRuntime = () => import("./cliCommandRuntime");

// Exit codes: 0 done (or serving until a signal), 2 for a command line or configuration the gateway
// refuses, 1 for a failure while starting, 3 for a command that refused to act (a task task:recover
// left alone, a key rotation a live replica could not follow), 4 for stored secrets keys:rotate could
// not open.
class UsageError extends Error {}

/** A command that ran but refused to act; its message says why. */
class RefusedError extends Error {}

/** A command that did what it could but left some of it undone; its message says what. */
class IncompleteError extends Error {}

/** The gateway could not start; its message says why and what to do, its cause keeps the stack. */
class StartupError extends Error {}

const TOKEN_USAGE = "lattice-gateway token:issue --tenant <tenant> --sub <subject> [--scope read|write|admin] [--expires-in 1h]";
const RECOVER_USAGE = "lattice-gateway task:recover --tenant <tenant> --task <task id>";
const ROTATE_USAGE = "lattice-gateway keys:rotate [--force]";

const HELP = `lattice-gateway ${GATEWAY_VERSION}: the axiom-lattice AI-agent gateway

usage:
  lattice-gateway                 start the gateway (configured by environment variables)
  lattice-gateway serve           the same
  ${TOKEN_USAGE}
                                  print a bearer token signed with AUTH_TOKEN_SECRET (development, scripts)
  ${RECOVER_USAGE}
                                  fail an orphaned in_progress task (no replica runs it) and resume its
                                  caller; needs DATABASE_URL; prints the result as one JSON line
  ${ROTATE_USAGE}
                                  reseal every stored secret (provider and assistant keys, MCP headers
                                  and env) under the first key of LATTICE_ENCRYPTION_KEY; needs
                                  DATABASE_URL; prints a JSON summary as one line. Refuses while a live
                                  replica lacks that key (--force: reseal anyway)
  lattice-gateway --help, -h      show this help
  lattice-gateway --version, -v   print the version

environment (the main variables; the README lists every one):
  PORT (4001), HOST (127.0.0.1), DATABASE_URL (unset: in-memory stores), AXIOM_REPLICA_ID,
  LOG_LEVEL (info), LOG_FORMAT (json; pretty for a terminal), AUTH_REQUIRED, AUTH_TOKEN_SECRET

Logs are JSON lines on stdout (LOG_FORMAT=pretty: lines for a person); the line "gateway ready at
<url>" announces the listening server.
Exit codes: 2 for a refused command line or configuration, 1 for a failure while starting,
3 when task:recover leaves the task alone (still running, a project task, or not found) or
keys:rotate finds a live replica without the new key,
4 when keys:rotate finds stored secrets it cannot open (every other one is resealed).
`;

/** Runs a strict `parseArgs` (the default): an unknown flag or a stray argument becomes a usage error. */
function parseStrictly<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) throw new UsageError(error.message);
    throw error;
  }
}

/** `token:issue`: prints a bearer token signed with AUTH_TOKEN_SECRET, for development and scripts. */
async function issueTokenCommand(args: string[]): Promise<void> {
  const { values } = parseStrictly(() =>
    parseArgs({
      args,
      options: {
        tenant: { type: "string" },
        sub: { type: "string" },
        scope: { type: "string", default: "write" },
        "expires-in": { type: "string", default: "1h" },
        help: { type: "boolean", short: "h" },
      },
    }),
  );
  if (values.help) return void process.stdout.write(`usage: ${TOKEN_USAGE}\n`);
  const missing = (["tenant", "sub"] as const).filter((option) => !values[option]);
  if (missing.length > 0) throw new UsageError(`token:issue needs ${missing.map((option) => `--${option}`).join(" and ")}: ${TOKEN_USAGE}`);
  if (!SCOPES.includes(values.scope as Scope)) throw new UsageError(`--scope "${values.scope}" is not a scope: one of ${SCOPES.join(", ")}`);
  const { issueToken, tokenSigningConfig } = await commandRuntime();
  const signing = tokenSigningConfig(process.env);
  const token = await issueToken({
    ...signing,
    tenantId: values.tenant as string,
    subject: values.sub as string,
    scope: values.scope as Scope,
    expiresIn: values["expires-in"],
  }).catch((error: unknown) => {
    // jose's message for a lifetime it cannot read ("1", "soon") names no option.
    if (error instanceof TypeError && /time period/i.test(error.message)) {
      throw new UsageError(`--expires-in "${values["expires-in"]}" is not a lifetime: a number with a unit, such as 90s, 30m, 1h or 7d`);
    }
    throw error;
  });
  process.stdout.write(`${token}\n`);
}

/** Why task:recover left a task alone; results not listed here are done (exit 0). */
const REFUSALS: Partial<Record<TaskRecoveryResult, string>> = {
  "skipped:live": "a replica still runs it (its run lease is held); nothing was changed",
  "skipped:queued": "its run is queued and not claimed yet: a replica will run it; nothing was changed",
  "skipped:project_task": "it is a project task, settled by its project's task machine; nothing was changed",
  not_found: "the tenant has no such task",
};

/**
 * `task:recover`: converges one orphaned task on the shared database, as the startup sweep would,
 * under the on-demand actor. Peers hear the lifecycle event through the outbox and the caller's
 * wake-up through the database.
 */
async function recoverTaskCommand(args: string[]): Promise<void> {
  const { values } = parseStrictly(() =>
    parseArgs({ args, options: { tenant: { type: "string" }, task: { type: "string" }, help: { type: "boolean", short: "h" } } }),
  );
  if (values.help) return void process.stdout.write(`usage: ${RECOVER_USAGE}\n`);
  if (!values.tenant || !values.task) throw new UsageError(`usage: ${RECOVER_USAGE}`);
  const { RecoveryActor, createGatewayStores, createGatewayTasks, loadConfig, pino } = await commandRuntime();
  const config = loadConfig(process.env);
  if (!config.databaseUrl) throw new ConfigError("DATABASE_URL", "task:recover works on the database the replicas share; set it");
  // Logs go to stderr: stdout carries only the result line.
  const logger = pino({ level: config.logLevel, base: { replica: config.replicaId } }, pino.destination(2));
  const stores = await createGatewayStores(config.databaseUrl, logger, config.secrets.keyring, config.database);
  try {
    const { service } = createGatewayTasks(config, stores, logger, (scope) => stores.queueWakeup?.notify(scope));
    const task = { tenantId: values.tenant, taskId: values.task };
    const result = await service.recover(task, RecoveryActor.ON_DEMAND);
    process.stdout.write(`${JSON.stringify({ tenant_id: task.tenantId, task_id: task.taskId, result })}\n`);
    const refusal = REFUSALS[result];
    if (refusal) throw new RefusedError(`task ${task.taskId} of tenant ${task.tenantId} left alone (${result}): ${refusal}`);
  } finally {
    await stores.dispose();
  }
}

// The kinds of secret keys:rotate counts, as its summary line names them.
const SECRET_KIND_NAMES: Record<StoredSecretKind, string> = {
  providerKeys: "provider_keys",
  assistantKeys: "assistant_keys",
  mcpHeaders: "mcp_headers",
  mcpEnv: "mcp_env",
  webAppSecrets: "web_app_secrets",
  a2aPushSecrets: "a2a_push_secrets",
};

/** keys:rotate's summary line, snake_case as the API's answers are. */
function resealSummaryView(summary: ResealSummary) {
  return {
    key_version: summary.keyVersion,
    kinds: Object.fromEntries(
      Object.entries(summary.kinds).map(([kind, count]) => [
        SECRET_KIND_NAMES[kind as StoredSecretKind],
        { resealed: count.resealed, changed_meanwhile: count.changedMeanwhile },
      ]),
    ),
    unreadable: summary.unreadable.map((secret) => ({ table: secret.table, tenant_id: secret.tenantId, id: secret.id, field: secret.field, reason: secret.reason })),
  };
}

/**
 * `keys:rotate`: reseals every stored secret of every tenant under the current key, on the database
 * the replicas share. Safe beside running replicas: each value is replaced only if still the one read.
 */
async function rotateKeysCommand(args: string[]): Promise<void> {
  const { values } = parseStrictly(() => parseArgs({ args, options: { force: { type: "boolean" }, help: { type: "boolean", short: "h" } } }));
  if (values.help) return void process.stdout.write(`usage: ${ROTATE_USAGE}\n`);
  const { UnreadableSecretsError, createPostgreSQLStores, loadConfig, pino, resealStoredSecrets } = await commandRuntime();
  const config = loadConfig(process.env);
  if (!config.databaseUrl) throw new ConfigError("DATABASE_URL", "keys:rotate reseals the secrets stored in the database the replicas share; set it");
  if (config.secrets.development) {
    throw new ConfigError("LATTICE_ENCRYPTION_KEY", "keys:rotate seals under its first key; set it (e.g. v2:<new key>,v1:<old key>), as every replica has it");
  }
  const { keyring } = config.secrets;
  // Logs go to stderr: stdout carries only the summary line.
  const logger = pino({ level: config.logLevel, base: { replica: config.replicaId } }, pino.destination(2));
  const pg = await createPostgreSQLStores(config.databaseUrl, {
    poolConfig: { application_name: "lattice-gateway keys:rotate" },
    directConnectionString: config.database.listenUrl,
    logger,
    keyring,
  });
  try {
    if (!values.force) requireReplicasHold(keyring.currentVersion, await pg.presence.listPresent());
    const summary = await resealStoredSecrets(pg.pool, { keyring, scope: "all" }).catch((error: unknown) => {
      if (!(error instanceof UnreadableSecretsError)) throw error;
      process.stdout.write(`${JSON.stringify(resealSummaryView(error.summary))}\n`);
      throw new IncompleteError(error.message);
    });
    process.stdout.write(`${JSON.stringify(resealSummaryView(summary))}\n`);
  } finally {
    await pg.dispose();
  }
}

/**
 * Refuses a rotation to `version` while a live replica cannot open it: every secret resealed would be
 * unreadable there, and every run needing one would fail until the replica restarts with the new key.
 */
function requireReplicasHold(version: string, replicas: ReplicaPresence[]): void {
  const lacking = replicas.filter((replica) => !replica.keyVersions?.includes(version));
  if (lacking.length === 0) return;
  const named = lacking.map((replica) => `${replica.replicaId} (${replica.keyVersions ? `holds ${replica.keyVersions.join(", ")}` : "too old to say"})`);
  throw new RefusedError(
    `keys:rotate refused: ${lacking.length === 1 ? "a live replica lacks" : `${lacking.length} live replicas lack`} key version "${version}": ${named.join("; ")}. ` +
      `Restart ${lacking.length === 1 ? "it" : "them"} with the new LATTICE_ENCRYPTION_KEY first (GET /api/cluster lists each replica's key_versions), or pass --force`,
  );
}

/** Starts the gateway; `start()` logs the startup line with the URL once it listens. */
async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseStrictly(() => parseArgs({ args, options: { help: { type: "boolean", short: "h" } } }));
  if (values.help) return void process.stdout.write(HELP);
  const { describeStartupFailure, loadConfig, start } = await commandRuntime();
  const config = loadConfig(process.env);
  await start(config).catch((error: unknown) => {
    throw new StartupError(describeStartupFailure(error, config), { cause: error });
  });
}

const COMMANDS = new Map<string, (args: string[]) => Promise<void>>([
  ["serve", serveCommand],
  ["token:issue", issueTokenCommand],
  ["task:recover", recoverTaskCommand],
  ["keys:rotate", rotateKeysCommand],
]);

async function run(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith("-")) {
    // Global flags only without a command; anything else given with them is refused by `serve`.
    if (first === "--version" || first === "-v") {
      if (rest.length > 0) throw new UsageError(`${first} takes no arguments`);
      return void process.stdout.write(`${GATEWAY_VERSION}\n`);
    }
    return serveCommand(argv);
  }
  const command = COMMANDS.get(first);
  if (!command) throw new UsageError(`unknown command "${first}"`);
  return command(rest);
}

/** The stack behind a one-line error, for LOG_LEVEL=debug or trace only: operators read the line. */
function debugStack(error: unknown): string {
  const verbose = ["debug", "trace"].includes(process.env.LOG_LEVEL ?? "");
  return verbose && error instanceof Error && error.stack ? `${error.stack}\n` : "";
}

async function main(): Promise<void> {
  try {
    await run(process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`lattice-gateway: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`lattice-gateway: ${error.message} (run "lattice-gateway --help" for usage)\n`);
      process.exit(2);
    }
    if (error instanceof RefusedError) {
      process.stderr.write(`lattice-gateway: ${error.message}\n`);
      process.exit(3);
    }
    if (error instanceof StartupError) {
      process.stderr.write(`lattice-gateway: failed to start: ${error.message}\n${debugStack(error.cause)}`);
      process.exit(1);
    }
    if (error instanceof IncompleteError) {
      process.stderr.write(`lattice-gateway: ${error.message}\n`);
      process.exit(4);
    }
    throw error;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`lattice-gateway: ${error instanceof Error ? error.message : String(error)}\n${debugStack(error)}`);
  process.exit(1);
});
