export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  fields: object;
  msg?: string;
}

/** The logger shape of `@axiom-lattice/core` (which this package does not depend on). */
export interface CapturingLogger {
  debug(fields: object, msg?: string): void;
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
  error(fields: object, msg?: string): void;
  child(bindings: Record<string, unknown>): CapturingLogger;
}

/** A logger that keeps every entry it is given, so tests can assert on logs. */
export function recordingLogger(): { logger: CapturingLogger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (fields: object, msg?: string): void => {
      entries.push({ level, fields, msg });
    };
  const logger: CapturingLogger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: () => logger };
  return { logger, entries };
}
