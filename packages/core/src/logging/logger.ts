import { pino } from "pino";

/** The structured-logging surface core needs; a pino (or Fastify) logger satisfies it. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/**
 * A new pino logger on stdout at `info`, for a component constructed without one. Each call builds its
 * own, so no component ever writes through another's: pass a logger to share fields and destination.
 */
export function defaultLogger(): Logger {
  return pino({ level: "info" });
}
