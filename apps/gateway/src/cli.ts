#!/usr/bin/env node
import { parseArgs } from "node:util";
import { issueToken } from "./auth/tokenIssuer";
import { SCOPES, type Scope } from "./auth/principal";
import { ConfigError, loadConfig, tokenSigningConfig } from "./config";
import { start } from "./start";

// Exit codes: 2 for a configuration (or command line) the gateway refuses, 1 for a failure while starting.
class UsageError extends Error {}

const USAGE = "usage: lattice-gateway token:issue --tenant <tenant> --sub <subject> [--scope read|write|admin] [--expires-in 1h]";

/** `token:issue`: prints a bearer token signed with AUTH_TOKEN_SECRET, for development and scripts. */
async function issueTokenCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { tenant: { type: "string" }, sub: { type: "string" }, scope: { type: "string", default: "write" }, "expires-in": { type: "string", default: "1h" } },
  });
  if (!values.tenant || !values.sub || !SCOPES.includes(values.scope as Scope)) throw new UsageError(USAGE);
  const token = await issueToken({
    ...tokenSigningConfig(process.env),
    tenantId: values.tenant,
    subject: values.sub,
    scope: values.scope as Scope,
    expiresIn: values["expires-in"],
  });
  process.stdout.write(`${token}\n`);
}

async function serve(): Promise<void> {
  const { url } = await start(loadConfig(process.env));
  process.stdout.write(`axiom-lattice gateway ready at ${url}\n`);
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  try {
    if (command === "token:issue") return await issueTokenCommand(args);
    if (command !== undefined) throw new UsageError(`unknown command "${command}"; ${USAGE}`);
    return await serve();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`lattice-gateway: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof UsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      process.stderr.write(`lattice-gateway: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`lattice-gateway: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
