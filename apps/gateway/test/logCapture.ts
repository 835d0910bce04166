import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

/** A pino logger at `level` whose lines are kept, parsed, in `lines` (a test empties it as it likes). */
export function capturedLog(level = "info"): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
