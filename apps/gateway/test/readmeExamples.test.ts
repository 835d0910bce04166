import { execa, type ResultPromise } from "execa";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { FakeModelListApi, freePort } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliGateway, type ReportedProcess, startCli, startedProcesses } from "./cliProcess";

// The README followed as a new reader follows it: every example in document order, then the deployment
// guide (docs/deployment.md) last, in one shell whose variables and background jobs carry from one
// example to the next, as a reader's terminal does. The gateway of "Try it" (`bash scripts/start.sh`,
// which installs, builds and then runs the checkout's CLI) is the built CLI on its own; the gateways
// the examples start (`pnpm start`, `pnpm exec lattice-gateway`, `npx lattice-gateway`) run the same
// CLI, a foreground one in the background as if in a terminal of its own. Each example of a fenced
// `sh` block must run without a failing command, every curl answering 2xx; the `js` blocks run as
// written and print what their comments say; every other block is skipped with its reason, and a
// block this file does not know fails it, so a new example is run or skipped on purpose.
// The one change to the text: every port the docs name (4001-4003, 4011-4013, 8080, Ollama's 11434)
// becomes a free one, the same one wherever it is named, so two sections naming one port still
// collide here; and the guide's role, database and nginx prefix are names of this run's own.

const ROOT = resolve(__dirname, "../../..");
const NGINX = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/sbin"].map((dir) => join(dir, "nginx")).find((file) => existsSync(file));
// Outside CI a machine without nginx skips the deployment guide (scripts/test.sh installs nothing there).
const deploymentSkipped = NGINX === undefined && process.env.CI !== "true";
if (deploymentSkipped) console.warn("SKIPPED: the deployment guide's walk needs nginx, which is not installed (e.g. `apt-get install nginx`); CI installs it");

/** A fenced block of a document, named by the heading it is under and its place there ("Try it 2"). */
interface Example {
  doc: string;
  key: string;
  lang: string;
  code: string;
}

function examplesOf(doc: string): Example[] {
  const text = readFileSync(resolve(ROOT, doc), "utf8");
  const examples: Example[] = [];
  const counts = new Map<string, number>();
  let heading = "";
  // One pass, so that a `# comment` inside a block is never taken for a heading.
  for (const match of text.matchAll(/^(#{1,3}) (.+)$|^```(\w*)\n([\s\S]*?)^```$/gm)) {
    if (match[1]) {
      heading = match[2];
      continue;
    }
    const n = (counts.get(heading) ?? 0) + 1;
    counts.set(heading, n);
    examples.push({ doc, key: `${heading} ${n}`, lang: match[3], code: match[4] });
  }
  return examples;
}

const WALK = [...examplesOf("README.md"), ...examplesOf("docs/deployment.md")];
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");

/** How many times a script calls curl for this file to count (commands, also inside `$( … )`; comments and calls with their own `-w` do not count). */
function curlCalls(script: string): number {
  return script
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, ""))
    .filter((line) => !/\s(-w|--write-out)\s/.test(line))
    .reduce((calls, line) => calls + (line.match(/(^|[\s;|&(])curl\s/g)?.length ?? 0), 0);
}

/** What a `js` example says it prints: the `// ` comment lines right after each `console.log` line. */
function printedAsCommented(example: string): string[] {
  const lines = example.split("\n");
  return lines.flatMap((line, index) => {
    if (!line.startsWith("console.log(")) return [];
    const comments: string[] = [];
    for (let next = index + 1; lines[next]?.startsWith("// "); next += 1) comments.push(lines[next].slice(3));
    return comments;
  });
}

/** A line that starts a gateway server (not one of the CLI's commands), and the port it names. */
const SERVER_START = /(?:pnpm start|pnpm exec lattice-gateway|npx lattice-gateway)(?=\s*(?:$|&|>|#))/;

interface ShellRun {
  script: string;
  stdout: string;
  stderr: string;
  /** Each curl call's HTTP status, in order (000: no answer). */
  statuses: number[];
  /** Each command that failed, as the shell's ERR trap reported it. */
  failed: string[];
}

const END = "__README_WALK_END__";

interface Server {
  pid: number;
  port: number;
  exit?: number;
}

/**
 * The reader's terminal: one bash, each example sourced into it, so its variables, functions and
 * background jobs stay for the next. Its own additions: curl reports each status on stderr, a failed
 * command is reported (not fatal, as in an interactive shell), and the gateway commands run the
 * checkout's CLI, each server's pid and exit code kept in the folder.
 */
class ReaderShell implements ReportedProcess {
  readonly label = "the README walk's shell";
  private out = "";
  private err = "";
  private count = 0;
  private exit: number | null | undefined;

  private constructor(
    private readonly child: ResultPromise,
    readonly dir: string,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => (this.out += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (this.err += chunk.toString()));
    child.once("exit", (code) => (this.exit = code));
  }

  static start(dir: string, env: Record<string, string>, defaultPort: number): ReaderShell {
    const child = execa("bash", ["--noprofile", "--norc"], { cwd: ROOT, env, extendEnv: false, stdin: "pipe", reject: false, buffer: false });
    const shell = new ReaderShell(child, dir);
    child.stdin?.write(
      [
        `__walk_dir=${JSON.stringify(dir)}; __walk_cli=${JSON.stringify(CLI)}; __walk_default_port=${defaultPort}`,
        `curl() { case " $* " in *" -w "*|*" --write-out "*) command curl "$@" ;; *) command curl "$@" --write-out '%{stderr}README_CURL_STATUS=%{http_code}\\n' ;; esac; }`,
        `trap '__walk_code=$?; printf "README_FAILED: %s (exit %s)\\n" "$BASH_COMMAND" "$__walk_code" >&2' ERR`,
        // A server: its port and, once it ends, its exit code, by pid. A command (token:issue, --version): as it is.
        `__walk_gateway() {`,
        `  if [ "$#" -gt 0 ]; then node "$__walk_cli" "$@"; return; fi`,
        `  local port="\${PORT:-$__walk_default_port}"`,
        `  PORT="$port" node "$__walk_cli" & local pid=$!`,
        `  echo "$port" > "$__walk_dir/gateway-$pid.port"`,
        `  wait "$pid"; local code=$?`,
        `  echo "$code" > "$__walk_dir/gateway-$pid.exit"; return "$code"`,
        `}`,
        `pnpm() { if [ "$1" = start ]; then shift; __walk_gateway "$@"; elif [ "$1" = exec ] && [ "$2" = lattice-gateway ]; then shift 2; __walk_gateway "$@"; else command pnpm "$@"; fi; }`,
        `npx() { if [ "$1" = lattice-gateway ]; then shift; __walk_gateway "$@"; else command npx "$@"; fi; }`,
        "",
      ].join("\n"),
    );
    startedProcesses.add(shell);
    return shell;
  }

  /** Sources `script` (stdin closed, as a pasted block reads none) and resolves once it ended. */
  async run(script: string, timeoutMs = 90_000): Promise<ShellRun> {
    const n = (this.count += 1);
    const file = join(this.dir, `example-${n}.sh`);
    writeFileSync(file, script);
    const outStart = this.out.length;
    const errStart = this.err.length;
    const marker = `${END}${n}\n`;
    this.child.stdin?.write(`source ${JSON.stringify(file)} < /dev/null; printf '\\n${END}%s\\n' ${n}; printf '\\n${END}%s\\n' ${n} >&2\n`);
    const deadline = Date.now() + timeoutMs;
    while (!(this.out.includes(marker, outStart) && this.err.includes(marker, errStart))) {
      if (this.exit !== undefined) throw new Error(`the shell exited (${this.exit}) during the example:\n${script}\n${this.describe()}`);
      if (Date.now() > deadline) throw new Error(`the example did not end within ${timeoutMs} ms:\n${script}\n${this.describe()}`);
      await new Promise((wake) => setTimeout(wake, 50));
    }
    const stdout = this.out.slice(outStart, this.out.indexOf(marker, outStart));
    const stderr = this.err.slice(errStart, this.err.indexOf(marker, errStart));
    return {
      script,
      stdout,
      stderr,
      statuses: [...stderr.matchAll(/README_CURL_STATUS=(\d+)/g)].map((match) => Number(match[1])),
      failed: [...stderr.matchAll(/^README_FAILED: (.*)$/gm)].map((match) => match[1]),
    };
  }

  /** Each gateway server the examples started: its pid, port and, once it ended, exit code. */
  servers(): Server[] {
    return readdirSync(this.dir)
      .filter((file) => /^gateway-\d+\.port$/.test(file))
      .map((file) => {
        const pid = Number(/\d+/.exec(file)![0]);
        const exitFile = join(this.dir, `gateway-${pid}.exit`);
        return { pid, port: Number(readFileSync(join(this.dir, file), "utf8")), ...(existsSync(exitFile) ? { exit: Number(readFileSync(exitFile, "utf8")) } : {}) };
      });
  }

  describe(): string {
    const servers = this.servers().map(({ port, pid, exit }) => `gateway on ${port} (pid ${pid}): ${exit === undefined ? "still running" : `exited with ${exit}`}`);
    const logs = existsSync(join(this.dir, "deployment"))
      ? readdirSync(join(this.dir, "deployment"))
          .filter((file) => file.endsWith(".log"))
          .map((file) => `--- the end of ${file} ---\n${readFileSync(join(this.dir, "deployment", file), "utf8").slice(-2_000)}`)
      : [];
    return [`--- shell ${this.exit === undefined ? "still running" : `exited with ${this.exit}`}; its servers: ${servers.join("; ") || "none"}`, `--- the end of its stdout ---\n${this.out.slice(-4_000)}`, `--- the end of its stderr ---\n${this.err.slice(-4_000)}`, ...logs].join("\n");
  }

  /** Ends every server the examples started (SIGTERM, then SIGKILL after 15 s), then the shell. */
  async stop(): Promise<void> {
    const running = this.servers().filter(({ exit }) => exit === undefined);
    for (const { pid } of running) signal(pid, "SIGTERM");
    const deadline = Date.now() + 15_000;
    while (this.servers().some(({ exit }) => exit === undefined) && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 100));
    for (const { pid, exit } of this.servers()) if (exit === undefined) signal(pid, "SIGKILL");
    this.child.stdin?.end();
    this.child.kill("SIGKILL");
    // A process the examples left (nginx's master has its own pid file) may still hold the shell's pipes.
    await Promise.race([this.child, new Promise((wake) => setTimeout(wake, 5_000))]);
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already ended.
  }
}

/**
 * Waits until the server an example started on `port` (a pid `before` did not hold) answers `/ready`
 * 200, as itself when the line names its `AXIOM_REPLICA_ID`; false once it exited, or after the timeout.
 */
async function startedAndReady(shell: ReaderShell, before: Set<number>, port: number, replicaId: string | undefined, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const server = shell.servers().find((candidate) => candidate.port === port && !before.has(candidate.pid));
    if (server?.exit !== undefined) return false;
    const response = server ? await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined) : undefined;
    if (response?.status === 200 && (replicaId === undefined || response.headers.get("x-axiom-replica") === replicaId)) return true;
    await new Promise((wake) => setTimeout(wake, 200));
  }
  return false;
}

/** The blocks the walk does not run, and why: each is run elsewhere, or cannot be here. */
const SKIPPED: Record<string, string> = {
  "README.md › Two commands 1": "start.sh installs, builds, then runs the CLI this walk starts for Try it (e2e/release/startScript.test.ts runs the script); test.sh is the whole suite",
  "README.md › Installing on another machine 1": "e2e/release/pack.test.ts packs with it, installs the tarballs in an empty folder and starts them",
  "README.md › Installing on another machine 2": "e2e/release/pack.test.ts",
  "README.md › LangGraph SDK 1": "TypeScript against the SDK: e2e scenario 24 runs it",
  "README.md › Your own graphs 1": "the file examples/my-graph/graph.mts, which the next example's gateway loads",
  "README.md › Web apps 2": "a host page in a browser: e2e scenario 30",
  "README.md › The task store 2": "a console transcript on PostgreSQL: taskRecoverCli.test.ts",
  "README.md › Assistants as MCP tools 2": "needs authentication on and its token: e2e scenario 32",
  "README.md › Rotating the encryption key 1": "placeholders (<new key>): keysRotateCli.test.ts runs keys:rotate",
  "README.md › Publishing to a private registry 1": "a registry's token: e2e/release/privateRegistry.test.ts does it against verdaccio",
  "docs/deployment.md › Containers 1": "docker: no base image can be pulled here (the guide says so)",
  "docs/deployment.md › API and worker replicas 1": "another shape of the cluster above: e2e scenario 27",
  "docs/deployment.md › Behind a pooler 1": "PgBouncer's configuration: e2e scenario 21",
};

/** The `js` blocks the walk runs, from the folder whose dependencies a reader's project would have. */
const NODE_EXAMPLES: Record<string, string> = {
  "README.md › An A2A client 1": "apps/gateway",
  "README.md › The agent runtime as a library 1": "packages/agent",
  "README.md › The task store 1": "packages/agent",
};

const keyOf = (example: Example) => `${example.doc} › ${example.key}`;

interface CheckContext {
  /** The address of the server the docs put on this port. */
  url(readmePort: number): string;
  modelApi: FakeModelListApi;
  shell: ReaderShell;
  failure: string;
}

/** What an example must show beyond running: its statuses when not all 2xx, what it prints. */
const CHECKS: Record<string, { statuses?: number[]; then?: (run: ShellRun, context: CheckContext) => void | Promise<void> }> = {
  "README.md › Two commands 2": {
    then: ({ stdout }, { failure }) => expect(stdout, failure).toMatch(/^pnpm \d+\.\d+\.\d+: /m),
  },
  "README.md › A2A 1": {
    then: ({ stdout }, { url, failure }) => {
      expect(stdout, failure).toContain(`"supportedInterfaces":[{"url":"${url(4001)}/a2a/my-assistant","protocolBinding":"JSONRPC"`);
      expect(stdout, failure).toMatch(/"status":\{"state":"TASK_STATE_COMPLETED"[^\n]*"artifacts":\[\{"artifactId":"answer","name":"answer","parts":\[\{"text":"echo: hello"\}\]/);
      expect(stdout, failure).toMatch(/"kind":"task"[^\n]*"status":\{"state":"completed"/);
    },
  },
  "README.md › Your own graphs 3": {
    then: ({ stdout }, { failure }) => {
      expect(stdout, failure).toContain('{"name":"Ada","greeting":"Hello, Ada!"}');
      expect(stdout, failure).toContain('"graphs":["react","hello"]');
    },
  },
  "README.md › Web apps 1": {
    then: ({ stdout }, { failure }) => {
      expect(stdout, failure).toContain('{"type":"done","status":"success"}');
      expect(stdout, failure).toMatch(/"messages":\[\{"id":"[^"]*","role":"user","content":"hello"\},\{"id":"[^"]*","role":"assistant","content":"echo: hello"\}\]/);
      expect(stdout, failure).toContain('"user_id":"operator-preview"');
      expect(stdout, failure).toMatch(/"user_id":"visitor:[0-9a-f-]{36}"/);
    },
  },
  // After "Try it", whose assistant and thread the key is restricted to and runs.
  "README.md › API keys 1": {
    statuses: [201, 200, 200, 200, 204, 401],
    then: ({ stdout }, { failure }) => {
      // The restricted key lists my-assistant alone (not the web apps section's shop-helper).
      expect(stdout, failure).toContain('{"assistants":[{"id":"my-assistant",');
      expect(stdout, failure).not.toContain('"shop-helper"');
      expect(stdout, failure).toContain('"status":"success"');
      expect(stdout, failure).toContain('"code":"UNAUTHENTICATED"');
      // Listed by its prefix: the key itself never shows again.
      expect(stdout, failure).toMatch(/"prefix":"lat_[A-Za-z0-9_-]{8}"/);
      expect(stdout, failure).not.toMatch(/lat_[A-Za-z0-9_-]{43}/);
    },
  },
  "README.md › Model providers 1": {
    then: ({ stdout }, { modelApi, failure }) => {
      expect(stdout, failure).not.toMatch(/"api_key":"sk-/);
      expect(stdout, failure).toContain('"has_api_key":true');
      expect(stdout, failure).toMatch(/"providers":\[\{"id":"local-llm".*\],"next_cursor":null,"has_more":false\}/);
      expect(stdout, failure).toMatch(/\{"reachable":true,"latency_ms":\d+,"models_count":2\}/);
      expect(stdout, failure).toContain('{"models_count":2,"added":2,"vanished":0,"listed_count":2,"truncated":false}');
      expect(stdout, failure).toMatch(/\{"models":\[\{"provider_id":"local-llm","model":"model-a","enabled":true,"available":true,.*\],"next_cursor":null,"has_more":false\}/);
      expect(modelApi.authorizations).toEqual(["Bearer sk-rotated", "Bearer sk-rotated"]);
    },
  },
  "README.md › MCP servers 1": {
    then: ({ stdout }, { failure }) => expect(stdout, failure).toContain("calc__add returned: 5"),
  },
  "README.md › MCP servers 2": {
    then: ({ stdout }, { failure }) => {
      expect(stdout, failure).toContain('"header_names":["Authorization"]');
      expect(stdout, failure).toContain('"timeout":10000,"env_names":["FIXTURE_TOKEN"]');
      expect(stdout, failure).not.toMatch(/example-token|example-secret/);
    },
  },
  "README.md › Assistants as MCP tools 1": {
    then: ({ stdout }, { failure }) => {
      expect(stdout, failure).toContain('"name":"Echo_de115745db","title":"Echo"');
      expect(stdout, failure).toMatch(/"content":\[\{"type":"text","text":"echo: hello from MCP"\}\],"structuredContent":\{"answer":"echo: hello from MCP","thread_id":"[^"]+"\}/);
    },
  },
  "README.md › Plugins 1": {
    then: ({ stdout }, { failure }) => {
      expect(stdout, failure).toContain('"name":"echo","source":"builtin","description":"Returns the given text unchanged.","enabled":false');
      expect(stdout.lastIndexOf('"enabled":true}'), failure).toBeGreaterThan(stdout.indexOf('"enabled":false}'));
    },
  },
  "README.md › Rooms 2": {
    then: ({ stdout }, { failure }) => expect(stdout, failure).toMatch(/id: \S+\ndata: \{[^\n]*"content":"Missed while away"/),
  },
  // The replicas answered the check as themselves, and a token reaches one of them through nginx, while
  // every gateway the README's sections started still runs on its own port.
  "docs/deployment.md › Deploying several replicas 2": {
    then: async ({ stdout }, { url, shell, failure }) => {
      for (const [i, port] of [4011, 4012, 4013].entries()) expect(stdout, failure).toContain(`${new URL(url(port)).port} 200 replica-${i + 1}\n`);
      expect(stdout, failure).toMatch(/^\{"threads":\[\]/m);
      // The token of tenant acme reaches the replicas only (a README gateway would answer 200 too, as its own replica).
      const token = (await shell.run('printf "%s\\n" "$TOKEN"')).stdout.trim();
      for (let i = 0; i < 6; i += 1) {
        const balanced = await fetch(`${url(8080)}/api/threads`, { headers: { authorization: `Bearer ${token}` } });
        expect(balanced.status, failure).toBe(200);
        expect(["replica-1", "replica-2", "replica-3"], failure).toContain(balanced.headers.get("x-axiom-replica"));
      }
      expect((await fetch(`${url(8080)}/api/threads`)).status, "without a token, through nginx").toBe(401);
      for (const port of [4001, 4002, 4003]) expect((await fetch(`${url(port)}/health`)).status, `the README's gateway on ${port}`).toBe(200);
    },
  },
};

describe("the README in order, then the deployment guide", () => {
  const ports = new Map<number, number>();
  let dir: string;
  let tryIt: CliGateway;
  let shell: ReaderShell;
  let modelApi: FakeModelListApi;
  const database = `readme_walk_${process.pid}_${Date.now().toString(36)}`;
  const adminUrl = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  const postgresEnv = {
    PGHOST: adminUrl.hostname,
    PGPORT: adminUrl.port || "5432",
    PGUSER: decodeURIComponent(adminUrl.username),
    ...(adminUrl.password ? { PGPASSWORD: decodeURIComponent(adminUrl.password) } : {}),
  };

  /** The text with every documented port replaced by this run's, and the guide's names by this run's. */
  const rewrite = (text: string) =>
    text
      .replace(/\b(4001|4002|4003|4011|4012|4013|8080|11434)\b/g, (port) => String(ports.get(Number(port))))
      .replace("createuser lattice && createdb --owner lattice lattice", `createuser ${database} && createdb --owner ${database} ${database}`)
      .replace(/postgres:\/\/lattice@127\.0\.0\.1:\d+\/lattice/g, `postgres://${database}@${adminUrl.hostname}:${postgresEnv.PGPORT}/${database}`)
      .replace(/\/var\/lib\/lattice-nginx/g, join(dir, "nginx"));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "readme-walk-"));
    modelApi = new FakeModelListApi("ollama");
    await modelApi.start();
    for (const port of [4001, 4002, 4003, 4011, 4012, 4013, 8080]) ports.set(port, await freePort());
    ports.set(11434, Number(new URL(modelApi.origin).port));
    // "Try it": bash scripts/start.sh's gateway, on its default port.
    tryIt = await startCli({ PORT: String(ports.get(4001)) }, 60_000);
    shell = ReaderShell.start(
      dir,
      {
        PATH: [dirname(process.execPath), process.env.PATH ?? "", "/usr/sbin"].join(delimiter),
        HOME: process.env.HOME ?? dir,
        // The guide's first commands run "as a PostgreSQL superuser".
        ...postgresEnv,
      },
      ports.get(4001)!,
    );
  }, 120_000);

  afterAll(async () => {
    if (existsSync(join(dir, "nginx", "nginx.pid"))) signal(Number(readFileSync(join(dir, "nginx", "nginx.pid"), "utf8")), "SIGQUIT");
    await Promise.all([shell?.stop(), tryIt?.stop(), modelApi?.stop()]);
    await execa("dropdb", ["--if-exists", "--force", database], { env: postgresEnv, reject: false });
    await execa("dropuser", ["--if-exists", database], { env: postgresEnv, reject: false });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("knows every block of both documents: each is run, or skipped with its reason", () => {
    const unknown = WALK.filter((example) => example.lang !== "sh" && !(keyOf(example) in NODE_EXAMPLES) && !(keyOf(example) in SKIPPED)).map(keyOf);
    expect(unknown).toEqual([]);
    const gone = [...Object.keys(SKIPPED), ...Object.keys(NODE_EXAMPLES), ...Object.keys(CHECKS)].filter((key) => !WALK.some((example) => keyOf(example) === key));
    expect(gone).toEqual([]);
  });

  it("no README section exports a setting into the reader's shell, so each works after any other", () => {
    const exported = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((match) => match[1].match(/^\s*export\s+\w+=.*$/gm) ?? []);
    expect(exported).toEqual([]);
  });

  for (const example of WALK) {
    const key = keyOf(example);
    const skipped = SKIPPED[key] ?? (example.doc === "docs/deployment.md" && deploymentSkipped ? "nginx is not installed" : undefined);
    if (skipped) {
      it.skip(`${key}: ${skipped}`, () => {});
      continue;
    }
    if (example.lang === "js") {
      it(`${key}: prints what its comments say`, { timeout: 90_000 }, async () => {
        const expected = printedAsCommented(example.code);
        expect(expected.length, example.code).toBeGreaterThan(0);
        const result = await execa("node", ["--input-type=module", "-e", rewrite(example.code)], { cwd: resolve(ROOT, NODE_EXAMPLES[key]), reject: false, timeout: 60_000 });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stdout.trim().split("\n"), result.stderr).toEqual(expected);
      });
      continue;
    }
    it(`${key}: runs in the reader's shell`, { timeout: 150_000 }, async () => {
      // The deployment guide runs in the folder the tarballs are installed in, with docs/nginx/nginx.conf copied there.
      let prefix = "";
      if (example.doc === "docs/deployment.md" && !existsSync(join(dir, "deployment"))) {
        mkdirSync(join(dir, "deployment", "docs", "nginx"), { recursive: true });
        writeFileSync(join(dir, "deployment", "docs", "nginx", "nginx.conf"), rewrite(readFileSync(resolve(ROOT, "docs/nginx/nginx.conf"), "utf8")));
        prefix = `cd ${JSON.stringify(join(dir, "deployment"))}\n`;
      }
      // A server started in the foreground runs in a terminal of its own: here, in the background.
      const script = rewrite(example.code)
        .split("\n")
        .map((line) => (SERVER_START.test(line) && !/&\s*(#.*)?$/.test(line) ? `${line} &` : line))
        .join("\n");
      const before = new Set(shell.servers().map(({ pid }) => pid));
      const run = await shell.run(prefix + script);
      const failure = `--- ${key}: the script ---\n${run.script}\n--- its stdout ---\n${run.stdout}\n--- its stderr ---\n${run.stderr}`;
      // As a reader waits for a server's `gateway ready at` line before the next example.
      for (const line of script.split("\n").filter((text) => SERVER_START.test(text))) {
        const port = Number(/\bPORT=(\d+)/.exec(line)?.[1] ?? ports.get(4001));
        const replicaId = /\bAXIOM_REPLICA_ID=(\S+)/.exec(line)?.[1];
        expect(await startedAndReady(shell, before, port, replicaId, 90_000), `the gateway started on ${port} is not ready\n${failure}`).toBe(true);
      }
      expect(run.failed, failure).toEqual([]);
      const check = CHECKS[key];
      if (check?.statuses) expect(run.statuses, failure).toEqual(check.statuses);
      else {
        expect(run.statuses, failure).toHaveLength(curlCalls(run.script));
        for (const status of run.statuses) expect(status, failure).toBeGreaterThanOrEqual(200);
        for (const status of run.statuses) expect(status, failure).toBeLessThan(300);
      }
      await check?.then?.(run, { url: (readmePort) => `http://127.0.0.1:${ports.get(readmePort)}`, modelApi, shell, failure });
    });
  }
});
