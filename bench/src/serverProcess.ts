// A server in a process of its own, as the figures measure servers: the load generator (this process)
// must not share an event loop with what it measures, and RSS is only meaningful per process.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";

export interface ServerProcessOptions {
  /** Shown in errors. */
  name: string;
  /** Arguments to `node`: flags, then the script and its arguments. */
  nodeArgs: string[];
  /** The whole environment of the process (nothing of this process's own leaks in). */
  env: Record<string, string>;
  /** A path answering 200 once the server can serve; without it, printing the URL is enough. */
  readyPath?: string;
  /** The server's URL when known beforehand, for servers that print no `ready at <url>` line. */
  url?: string;
  /**
   * Runs the process in a process group of its own and signals the whole group: for launchers whose
   * server is a grandchild (the LangGraph CLI runs `tsx watch`, which runs the server).
   */
  processGroup?: boolean;
  timeoutMs?: number;
}

/** Servers announce themselves with one line `… ready at <url>` on stdout (the gateway CLI does). */
const READY_LINE = /ready at (http:\/\/[^\s"]+)/;

export class ServerProcess {
  private readonly output: string[] = [];

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    private readonly processGroup: boolean,
    private announcedUrl: string,
  ) {
    const collect = (chunk: Buffer) => this.output.push(chunk.toString());
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    // A process that cannot be spawned surfaces as "exited before it was ready" with this message.
    child.on("error", (error) => this.output.push(`spawn failed: ${error.message}\n`));
  }

  /** Starts the process and resolves once it printed its URL and, when asked, `readyPath` answers 200. */
  static async start({ name, nodeArgs, env, readyPath, url = "", processGroup = false, timeoutMs = 30_000 }: ServerProcessOptions): Promise<ServerProcess> {
    const child = spawn(process.execPath, nodeArgs, { env, stdio: ["ignore", "pipe", "pipe"], detached: processGroup });
    const server = new ServerProcess(name, child, processGroup, url);
    try {
      await server.waitReady(readyPath, Date.now() + timeoutMs);
    } catch (error) {
      server.signal("SIGKILL");
      throw error;
    }
    return server;
  }

  /** The URL the server announced. */
  get url(): string {
    return this.announcedUrl;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Everything the process printed so far. */
  get logs(): string {
    return this.output.join("");
  }

  private async waitReady(readyPath: string | undefined, deadline: number): Promise<void> {
    const fail = (why: string) => new Error(`${this.name} ${why}:\n${this.logs}`);
    while (!this.announcedUrl) {
      const url = READY_LINE.exec(this.logs)?.[1];
      if (url) this.announcedUrl = url;
      else if (this.child.exitCode !== null || this.child.signalCode !== null) throw fail("exited before it was ready");
      else if (Date.now() > deadline) throw fail("printed no URL in time");
      else await sleep(25);
    }
    while (readyPath) {
      const response = await fetch(`${this.url}${readyPath}`).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) return;
      if (Date.now() > deadline) throw fail(`answered no 200 on ${readyPath} in time`);
      await sleep(100);
    }
  }

  /** Resident set size now, as the kernel counts it (VmRSS in /proc/<pid>/status). */
  rssBytes(): number {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`${this.name} has exited (${this.child.exitCode ?? this.child.signalCode}):\n${this.logs}`);
    }
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kilobytes === undefined) throw new Error(`${this.name}: no VmRSS in /proc/${this.pid}/status`);
    return Number(kilobytes) * 1024;
  }

  /** Sends `signal` to this process (to its process group when it has one of its own). */
  signal(signal: NodeJS.Signals): void {
    if (!this.processGroup) this.child.kill(signal);
    else if (this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, signal);
      } catch {
        // The group is gone already.
      }
    }
  }

  /** Asks the process to stop (SIGTERM), and kills it when it has not within `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
    // The launcher may exit before the server it started: what is left of its group goes now.
    if (this.processGroup) this.signal("SIGKILL");
  }
}
