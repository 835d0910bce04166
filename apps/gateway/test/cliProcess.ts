import { execa, type ResultPromise } from "execa";
import { resolve } from "node:path";

/** The built CLI, as `lattice-gateway` runs it. */
export const CLI = resolve(__dirname, "../dist/cli.js");

/** A process a test started, as a failed test reports it (`processReports.ts`). */
export interface ReportedProcess {
  /** What it is, e.g. "the gateway at http://127.0.0.1:4001". */
  label: string;
  /** Whether it still runs, and the end of what it printed. */
  describe(): string;
}

export interface CliGateway extends ReportedProcess {
  url: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** The exit code once the process has ended; undefined while it runs. */
  exitCode(): number | null | undefined;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | undefined>;
}

/** Starts `lattice-gateway` with exactly `env` and resolves once its startup line names the URL. */
export function startCli(env: Record<string, string>, timeoutMs = 30_000, until?: RegExp): Promise<CliGateway> {
  return startGatewayProcess(process.execPath, [CLI], { env, timeoutMs, until });
}

/**
 * Every gateway process this test file started: when a test fails, `processReports.ts` prints how each
 * ended and what it printed last, as a gateway that crashed or stopped answering is otherwise invisible.
 */
export const startedProcesses = new Set<ReportedProcess>();

/** The startup line that names the listening URL. */
const READY_LINE = /ready at (http:\/\/[^\s"]+)/;

/** Starts a command that runs the gateway and resolves once a line matching `until` (default: the startup line) names the URL. */
export async function startGatewayProcess(
  file: string,
  args: string[],
  { env, cwd, timeoutMs = 30_000, until = READY_LINE }: { env: Record<string, string>; cwd?: string; timeoutMs?: number; until?: RegExp },
): Promise<CliGateway> {
  // No lifetime bound beyond the test run's (execa ends the child with it): a test stops its gateway,
  // and one serving a long test (the README's sections, a loaded machine) must not be killed midway.
  const child: ResultPromise = execa(file, args, { env, cwd, extendEnv: false, reject: false });
  const chunks: string[] = [];
  const errorChunks: string[] = [];
  let exitCode: number | null | undefined;
  let exitSignal: NodeJS.Signals | null = null;
  // A gateway ends its graceful shutdown with 0, so the code alone does not say whether the test
  // stopped it or something else did (a timeout's SIGTERM, as issue 41's flaky README run had).
  let stoppedByTest = false;
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => errorChunks.push(chunk.toString()));
  child.once("exit", (code, signal) => {
    exitCode = code;
    exitSignal = signal;
  });
  const ending = () =>
    exitCode === undefined
      ? "still running"
      : `exited with ${exitCode ?? `signal ${exitSignal}`} ${stoppedByTest ? "after the test stopped it" : "on its own or by another's signal, not the test's"}`;
  const url = await new Promise<string>((resolveUrl, rejectUrl) => {
    const timer = setTimeout(() => rejectUrl(new Error(`no startup line within ${timeoutMs} ms:\n${chunks.join("")}`)), timeoutMs);
    child.stdout?.on("data", () => {
      const match = until.exec(chunks.join(""));
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      rejectUrl(new Error(`gateway exited before it was ready:\n${chunks.join("")}`));
    });
  });
  const gateway: CliGateway = {
    url,
    label: `the gateway at ${url}`,
    stdout: () => chunks.join(""),
    stderr: () => errorChunks.join(""),
    exitCode: () => exitCode,
    describe: () =>
      `--- gateway ${ending()}; the end of its stdout ---\n${chunks.join("").slice(-4_000)}\n` +
      `--- the end of its stderr ---\n${errorChunks.join("").slice(-4_000)}`,
    async stop() {
      stoppedByTest = true;
      child.kill("SIGTERM");
      return (await child).exitCode;
    },
  };
  startedProcesses.add(gateway);
  return gateway;
}
