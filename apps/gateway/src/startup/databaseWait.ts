import { setTimeout as delay } from "node:timers/promises";
import { type Logger, isDatabaseUnavailable } from "@axiom-lattice/core";
import { checkConnection } from "@axiom-lattice/pg-stores";
import type { DatabaseSettings } from "../config";
import { DB_STARTUP_FIRST_RETRY_MS, DB_STARTUP_MAX_RETRY_MS } from "../defaults";

/** Startup gives up on the database: it refused (credentials, no such database) or did not answer in time. */
export class DatabaseStartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseStartupError";
  }
}

/** node-postgres' words for a URL without a password to a server that asks for one. */
export const NO_PASSWORD = /client password must be a string/;

/**
 * Whether the database refused the credentials: PostgreSQL says so with class 28, but a pooler
 * (PgBouncer) with its own `08P01`, a connection-exception code that would otherwise be waited on, and
 * node-postgres refuses to start SCRAM without a password before asking anyone.
 */
export function refusedCredentials(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && code.startsWith("28")) return true;
  return typeof message === "string" && (/authentication failed/i.test(message) || NO_PASSWORD.test(message));
}


const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)) || "no answer";

/**
 * Resolves once the database answers. While it is unavailable, retries with backoff (doubling, capped)
 * until `startupTimeoutMs` has passed, logging one line per failed attempt (the reason, no stack) and
 * telling `onWaiting` why (the first call is the moment to start answering `/ready` with 503). An error
 * that waiting cannot cure (bad credentials, an unknown database) ends the wait at once.
 */
export async function waitForDatabase(
  databaseUrl: string,
  settings: Pick<DatabaseSettings, "connectTimeoutMs" | "startupTimeoutMs">,
  logger: Logger,
  onWaiting: (reason: string) => Promise<void> | void,
): Promise<void> {
  const deadline = Date.now() + settings.startupTimeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await checkConnection(databaseUrl, settings.connectTimeoutMs);
      if (attempt > 1) logger.info({ phase: "startup", attempt }, "database available");
      return;
    } catch (error) {
      const reason = reasonOf(error);
      if (!isDatabaseUnavailable(error) || refusedCredentials(error)) throw new DatabaseStartupError(`the database refused the connection: ${reason}`, { cause: error });
      const retryInMs = Math.min(DB_STARTUP_MAX_RETRY_MS, DB_STARTUP_FIRST_RETRY_MS * 2 ** (attempt - 1));
      if (Date.now() + retryInMs > deadline) {
        throw new DatabaseStartupError(`the database did not answer within ${settings.startupTimeoutMs} ms (AXIOM_DB_STARTUP_TIMEOUT_MS; last: ${reason}): check that PostgreSQL runs where DATABASE_URL points and accepts connections`, { cause: error });
      }
      logger.warn({ phase: "startup", attempt, retryInMs, reason }, `database unavailable (${reason}); retrying in ${retryInMs} ms`);
      await onWaiting(reason);
      await delay(retryInMs);
    }
  }
}
