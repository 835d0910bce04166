import { LISTEN_CONNECTIONS } from "@axiom-lattice/pg-stores";
import type { FastifyBaseLogger } from "fastify";
import type { GatewayContext } from "./context/gatewayContext";
import { GATEWAY_VERSION } from "./version";

/**
 * Logs the line that says what started: version, store mode, schema, database connections, URL (the replica is on every
 * line). Written at info even under LOG_LEVEL=warn, as servers always print where they listen;
 * only `silent` hides it.
 */
export function logStartupSummary(logger: FastifyBaseLogger, context: GatewayContext, url: string): void {
  const announcer = logger.level === "silent" ? logger : logger.child({}, { level: "info" });
  const { migrations } = context.stores;
  announcer.info(
    {
      phase: "startup",
      version: GATEWAY_VERSION,
      role: context.config.role,
      storeMode: context.describeReplica().storeMode,
      ...(migrations ? { migrationsApplied: migrations.applied, schemaVersion: migrations.schemaVersion } : {}),
      // The most this replica holds open on the database: its pool and its LISTEN connections.
      ...(context.stores.kind === "postgres" ? { databaseConnections: context.config.database.poolMax + LISTEN_CONNECTIONS } : {}),
      url,
    },
    `gateway ready at ${url}`,
  );
}
