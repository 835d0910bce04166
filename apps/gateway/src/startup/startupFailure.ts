import type { GatewayConfig } from "../config";
import { DatabaseStartupError, NO_PASSWORD, refusedCredentials } from "./databaseWait";

/** PostgreSQL's codes for what the operator fixes in DATABASE_URL or on the server, with what to do. */
const DATABASE_REFUSALS = new Map<string, string>(Object.entries({
  "3D000": "create it (e.g. `createdb <name>`) or point DATABASE_URL at one that exists",
  "28P01": "check the user and password in DATABASE_URL",
  "28000": "the server refuses this user from this host: check DATABASE_URL's user and the server's pg_hba.conf",
  "42501": "the user lacks a privilege the gateway needs (it creates its tables): grant it, or use the database's owner",
}));

/** Listen errors the operator fixes with HOST or PORT, with what to do. */
const LISTEN_REFUSALS = new Map<string, (where: string) => string>(Object.entries({
  EADDRINUSE: (where: string) => `${where} is already in use by another process: stop it, or set PORT to a free port (PORT=0 picks one)`,
  EACCES: (where: string) => `${where} needs privileges this process lacks: set PORT above 1023`,
  EADDRNOTAVAIL: (where: string) => `${where}: HOST is not an address of this machine; set HOST to one of its addresses (0.0.0.0 for every one)`,
}));

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * What went wrong while starting, as one line an operator can act on: a port in use, a database that
 * does not exist or refuses the credentials, one that never answered. Anything else is its message; its
 * stack is for the log at debug level, not for the operator's terminal.
 */
export function describeStartupFailure(error: unknown, config: Pick<GatewayConfig, "host" | "port">): string {
  const listenRefusal = LISTEN_REFUSALS.get(codeOf(error) ?? "");
  if (listenRefusal) return listenRefusal(`port ${config.port} on ${config.host}`);
  const cause = error instanceof DatabaseStartupError ? error.cause : error;
  if (NO_PASSWORD.test(messageOf(cause))) {
    return "the database asks for a password and DATABASE_URL gives none: add it (postgres://user:password@host:port/database)";
  }
  const advice = DATABASE_REFUSALS.get(codeOf(cause) ?? "") ?? (refusedCredentials(cause) ? DATABASE_REFUSALS.get("28P01") : undefined);
  return advice ? `${messageOf(error)}: ${advice}` : messageOf(error);
}
