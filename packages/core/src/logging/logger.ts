import { pino } from "pino";

/** The structured-logging surface core needs; a pino (or Fastify) logger satisfies it. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

let current: Logger | undefined;

/** The process-wide logger: the one installed with {@link setLogger}, else a pino logger on stdout. */
export function getLogger(): Logger {
  current ??= pino({ level: "info" });
  return current;
}

/** Installs the logger core writes to (the gateway passes its own, so every line shares its fields). */
export function setLogger(logger: Logger): void {
  current = logger;
}
