import { execa, type ResultPromise } from "execa";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const running = new Set<Child>();

/** Kills every child still running: call after each test, so a failed test leaves no racer behind. */
export async function killRunningChildren(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      child.kill("SIGKILL");
      await child.outcome();
    }),
  );
}

export interface ChildOutcome<T> {
  exitCode: number | undefined;
  signal: string | undefined;
  /** Payload of the child's RESULT line, if it printed one. */
  result: T | undefined;
  stderr: string;
}

/**
 * A separate Node process running one fixture script, talking through `<TAG> <json>` lines on stdout
 * (see fixtures/child.mjs). Children still running when the test process exits are killed by execa.
 */
export class Child {
  private readonly tagged: { tag: string; payload: unknown }[] = [];
  private readonly waiters: { tag: string; resolve(payload: unknown): void }[] = [];
  private stderr = "";
  private readonly process: ResultPromise<{ reject: false; buffer: false }>;
  private readonly exited: Promise<void>;

  constructor(
    readonly script: string,
    config: Record<string, unknown>,
  ) {
    this.process = execa(process.execPath, [fixtures + script, JSON.stringify(config)], {
      reject: false,
      buffer: false,
      env: { LOG_LEVEL: "warn" },
    });
    createInterface({ input: this.process.stdout }).on("line", (line) => this.onLine(line));
    this.process.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = this.process.then(() => {
      running.delete(this);
    });
    running.add(this);
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The payload of the first line tagged `tag`; rejects if the child exits, or `timeoutMs` passes, first. */
  async next<T = unknown>(tag: string, timeoutMs = 15_000): Promise<T> {
    const seen = this.tagged.find((line) => line.tag === tag);
    if (seen) return seen.payload as T;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        new Promise<T>((resolve) => this.waiters.push({ tag, resolve: resolve as (payload: unknown) => void })),
        this.exited.then(() => {
          throw new Error(`${this.script} exited before printing ${tag}:\n${this.stderr}`);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${this.script} printed no ${tag} within ${timeoutMs} ms:\n${this.stderr}`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the child's stdin: the start signal of fixtures/child.mjs `readyThenWaitForGo`. */
  go(): void {
    this.process.stdin.end();
  }

  kill(signal: NodeJS.Signals): void {
    this.process.kill(signal);
  }

  /** Waits for the child to end. */
  async outcome<T>(): Promise<ChildOutcome<T>> {
    const ended = await this.process;
    return {
      exitCode: ended.exitCode,
      signal: ended.signal,
      result: this.tagged.find((line) => line.tag === "RESULT")?.payload as T | undefined,
      stderr: this.stderr,
    };
  }

  /** Waits for the child to end, requiring a clean exit, and returns its RESULT payload. */
  async result<T>(): Promise<T> {
    const ended = await this.outcome<T>();
    if (ended.exitCode !== 0 || ended.result === undefined) {
      throw new Error(`${this.script} failed (exit ${ended.exitCode}, signal ${ended.signal}):\n${ended.stderr}`);
    }
    return ended.result;
  }

  private onLine(line: string): void {
    const match = /^([A-Z]+) (\{.*\})$/.exec(line);
    if (!match) return; // core's log lines
    const entry = { tag: match[1], payload: JSON.parse(match[2]) as unknown };
    this.tagged.push(entry);
    for (const waiter of this.waiters.filter((w) => w.tag === entry.tag)) waiter.resolve(entry.payload);
  }
}

/** Starts `count` children of one script, waits until all are READY, then lets them go at once. */
export async function race(count: number, script: string, config: (index: number) => Record<string, unknown>): Promise<Child[]> {
  const children = Array.from({ length: count }, (_, index) => new Child(script, config(index)));
  await Promise.all(children.map((child) => child.next("READY")));
  for (const child of children) child.go();
  return children;
}
