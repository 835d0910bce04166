import type { FastifyBaseLogger } from "fastify";
import type { GatewayContext } from "./context/gatewayContext";
import { GATEWAY_VERSION } from "./version";

/**
 * Logs the line that says what started: version, store mode, schema, URL (the replica is on every
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
      storeMode: context.describeReplica().storeMode,
      ...(migrations ? { migrationsApplied: migrations.applied, schemaVersion: migrations.schemaVersion } : {}),
      url,
    },
    `gateway ready at ${url}`,
  );
}
