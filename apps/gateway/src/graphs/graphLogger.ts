import type { Logger } from "@axiom-lattice/core";

/** Where LangGraph Platform puts the logger graphs reach through `getLogger()` of `@langchain/langgraph-sdk/logging`. */
const PLATFORM_LOGGER = Symbol.for("langgraph.api.sdk-logger");

type Level = "error" | "warn" | "info" | "debug";
const LEVELS: readonly Level[] = ["error", "warn", "info", "debug"];

/**
 * Gives deployed graphs the logger the platform gives them: `logger.warn("message", { extra })`
 * lines go to the gateway's log, marked as the graph's. Graphs that call `getLogger()` when they load
 * need it before they load.
 */
export function provideGraphLogger(logger: Logger): void {
  const graphLogger = logger.child({ source: "graph" });
  const platformLogger = Object.fromEntries(
    LEVELS.map((level) => [level, (message: unknown, extra?: Record<string, unknown>) => graphLogger[level](extra ?? {}, String(message))]),
  );
  (globalThis as Record<symbol, unknown>)[PLATFORM_LOGGER] ??= platformLogger;
}
