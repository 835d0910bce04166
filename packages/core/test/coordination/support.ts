import { InMemoryLeaseStore, type Logger, setLogger } from "../../src";

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  fields: object;
  msg?: string;
}

/** A logger that records what it is given, so tests can assert on it. */
export function recordingLogger(): { logger: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (fields: object, msg?: string): void => {
      entries.push({ level, fields, msg });
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: () => logger };
  return { logger, entries };
}

/** Sends core's logs to an array instead of stdout, so tests can assert on them. */
export function captureLogs(): LogEntry[] {
  const { logger, entries } = recordingLogger();
  setLogger(logger);
  return entries;
}

/**
 * An in-memory store whose clock can be pushed forward, so a test can force a live lease to expire
 * while its heartbeat keeps running.
 */
export function storeWithMovableClock(): { store: InMemoryLeaseStore; advance(ms: number): void } {
  let offset = 0;
  return {
    store: new InMemoryLeaseStore(() => Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** An in-memory store whose releases fail, as when the database connection drops at the end of the work. */
export class FailingReleaseStore extends InMemoryLeaseStore {
  override async release(): Promise<boolean> {
    throw new Error("connection reset");
  }
}
