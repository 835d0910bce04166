import { execa, type ResultPromise } from "execa";
import { resolve } from "node:path";
import { onTestFailed } from "vitest";
import { AUTH_ENV } from "./auth";

const CLI = resolve(__dirname, "../../apps/gateway/dist/cli.js");

export interface ReplicaOptions {
  replicaId: string;
  databaseUrl?: string;
  env?: Record<string, string>;
}

/** One real gateway process, started from the same entry point users run. */
export class Replica {
  readonly replicaId: string;
  url = "";
  private readonly output: string[] = [];
  private readonly process: ResultPromise;

  constructor({ replicaId, databaseUrl, env = {} }: ReplicaOptions) {
    this.replicaId = replicaId;
    this.process = execa("node", [CLI], {
      env: {
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        AXIOM_REPLICA_ID: replicaId,
        // Set where scenario files run two at a time on one PostgreSQL (100 connections; see
        // vitest.config.mts): a replica's pool grown in a burst gives its connections back sooner,
        // and holds fewer at once.
        ...(process.env.E2E_DATABASE_IDLE_TIMEOUT_MS ? { DATABASE_IDLE_TIMEOUT_MS: process.env.E2E_DATABASE_IDLE_TIMEOUT_MS } : {}),
        ...(process.env.E2E_DATABASE_POOL_MAX ? { DATABASE_POOL_MAX: process.env.E2E_DATABASE_POOL_MAX } : {}),
        ...AUTH_ENV,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        ...env,
      },
      extendEnv: false,
      reject: false,
      cleanup: true,
    });
    const collect = (chunk: Buffer) => this.output.push(chunk.toString());
    this.process.stdout?.on("data", collect);
    this.process.stderr?.on("data", collect);
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  /** Whether the process is still running (it has neither exited nor been killed). */
  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Everything the process printed so far. */
  get logs(): string {
    return this.output.join("");
  }

  /** Structured log lines (pino JSON) printed so far. */
  logLines(): Array<Record<string, unknown>> {
    return this.logs
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Waits until the CLI printed its URL and `/ready` answers 200. */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.url) {
      const match = /ready at (http:\/\/[^\s"]+)/.exec(this.logs);
      if (match) this.url = match[1];
      else if (this.process.exitCode !== null) throw new Error(`${this.replicaId} exited early:\n${this.logs}`);
      else if (Date.now() > deadline) throw new Error(`${this.replicaId} printed no URL within ${timeoutMs} ms:\n${this.logs}`);
      else await new Promise((r) => setTimeout(r, 50));
    }
    for (;;) {
      const response = await fetch(`${this.url}/ready`).catch(() => undefined);
      if (response?.status === 200) return;
      if (Date.now() > deadline) throw new Error(`${this.replicaId} not ready within ${timeoutMs} ms:\n${this.logs}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Freezes the process (SIGSTOP), as a long GC pause, a frozen VM or a throttled container would. */
  pause(): void {
    this.process.kill("SIGSTOP");
  }

  /** Lets a paused process go on (SIGCONT) from where it stopped. */
  resume(): void {
    this.process.kill("SIGCONT");
  }

  /** Sends `signal` to this process (by its pid) and waits for it to exit; returns the exit code. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | undefined> {
    if (this.running) this.process.kill(signal);
    const result = await this.process;
    return result.exitCode;
  }
}

/** Starts `count` replicas at once (ids `<prefix>-1` …) and waits until all are ready. */
export async function startReplicas(
  count: number,
  options: Omit<ReplicaOptions, "replicaId"> & { prefix?: string },
): Promise<Replica[]> {
  const replicas = Array.from(
    { length: count },
    (_, i) => new Replica({ ...options, replicaId: `${options.prefix ?? "replica"}-${i + 1}` }),
  );
  try {
    await Promise.all(replicas.map((replica) => replica.waitReady()));
  } catch (error) {
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    throw error;
  }
  return replicas;
}

/** Prints the replicas' logs when the running test fails (call it from the test). */
export function printLogsOnFailure(replicas: () => Replica[]): void {
  onTestFailed(() => {
    for (const replica of replicas()) console.error(`----- logs of ${replica.replicaId} -----\n${replica.logs}`);
  });
}
