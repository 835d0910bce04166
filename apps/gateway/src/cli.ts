#!/usr/bin/env node
import { parseArgs } from "node:util";
import { issueToken } from "./auth/tokenIssuer";
import { SCOPES, type Scope } from "./auth/principal";
import { ConfigError, loadConfig, tokenSigningConfig } from "./config";
import { start } from "./start";
import { GATEWAY_VERSION } from "./version";

// Exit codes: 0 done (or serving until a signal), 2 for a command line or configuration the gateway
// refuses, 1 for a failure while starting.
class UsageError extends Error {}

const TOKEN_USAGE = "lattice-gateway token:issue --tenant <tenant> --sub <subject> [--scope read|write|admin] [--expires-in 1h]";

const HELP = `lattice-gateway ${GATEWAY_VERSION}: the axiom-lattice AI-agent gateway

usage:
  lattice-gateway                 start the gateway (configured by environment variables)
  lattice-gateway serve           the same
  ${TOKEN_USAGE}
                                  print a bearer token signed with AUTH_TOKEN_SECRET (development, scripts)
  lattice-gateway --help, -h      show this help
  lattice-gateway --version, -v   print the version

environment (the main variables; the README lists every one):
  PORT (4001), HOST (127.0.0.1), DATABASE_URL (unset: in-memory stores), AXIOM_REPLICA_ID,
  LOG_LEVEL (info), AUTH_REQUIRED, AUTH_TOKEN_SECRET

Logs are JSON lines on stdout; the line "gateway ready at <url>" announces the listening server.
Exit codes: 2 for a refused command line or configuration, 1 for a failure while starting.
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
  if (!values.tenant || !values.sub || !SCOPES.includes(values.scope as Scope)) throw new UsageError(`usage: ${TOKEN_USAGE}`);
  const token = await issueToken({
    ...tokenSigningConfig(process.env),
    tenantId: values.tenant,
    subject: values.sub,
    scope: values.scope as Scope,
    expiresIn: values["expires-in"],
  });
  process.stdout.write(`${token}\n`);
}

/** Starts the gateway; `start()` logs the startup line with the URL once it listens. */
async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseStrictly(() => parseArgs({ args, options: { help: { type: "boolean", short: "h" } } }));
  if (values.help) return void process.stdout.write(HELP);
  await start(loadConfig(process.env));
}

const COMMANDS = new Map<string, (args: string[]) => Promise<void>>([
  ["serve", serveCommand],
  ["token:issue", issueTokenCommand],
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

async function main(): Promise<void> {
  try {
    await run(process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`lattice-gateway: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`lattice-gateway: ${error.message}\nRun "lattice-gateway --help" for usage.\n`);
      process.exit(2);
    }
    throw error;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`lattice-gateway: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
