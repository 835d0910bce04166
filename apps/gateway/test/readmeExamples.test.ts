import { execa } from "execa";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { FakeModelListApi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliGateway, startCli } from "./cliProcess";

// The README's examples, run as a reader would. Every fenced `sh` block of these sections that calls
// curl runs as one bash script from the checkout's root, against a gateway started by the CLI on a
// free port (the one change: port 4001 becomes that port); every curl must answer 2xx. The library
// examples (`js` blocks) run as written, as ES modules resolved from the agent package (which has
// core and LangGraph as dependencies, as a reader's project would), and must print what their
// comments say. The LangGraph SDK example runs in e2e scenario 24, against a gateway.

const ROOT = resolve(__dirname, "../../..");
const README = readFileSync(resolve(ROOT, "README.md"), "utf8");
const AUTH_SECRET = "a-readme-secret-of-at-least-32-characters";

/** The fenced `sh` blocks under `## <heading>` (up to the next `## `) that call curl. */
function curlExamples(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no section "## ${heading}"`);
  const end = README.indexOf("\n## ", start + 1);
  const section = README.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  return blocks.filter((block) => curlCalls(block) > 0);
}

/** The fenced `js` blocks under `### <heading>` (up to the next heading). */
function jsExamples(heading: string): string[] {
  const start = README.indexOf(`\n### ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no section "### ${heading}"`);
  const end = README.slice(start + 1).search(/\n##+ /);
  const section = README.slice(start, end === -1 ? undefined : start + 1 + end);
  return [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
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

/** How many times a script calls curl (commands, also inside `$( … )`; comments do not count). */
function curlCalls(script: string): number {
  return script
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, ""))
    .reduce((calls, line) => calls + (line.match(/(^|[\s;|&(])curl\s/g)?.length ?? 0), 0);
}

// Each curl call reports its status on stderr, after whatever the example itself prints.
const STATUS_REPORTER = `curl() { command curl "$@" --write-out '%{stderr}README_CURL_STATUS=%{http_code}\\n'; }\nset -euo pipefail\n`;

/** How a reader runs an example: in a shell with these variables, against the gateway the README has on this port. */
interface Reader {
  env?: Record<string, string>;
  readmePort?: number;
  /** Other servers the example names, README port to the port a test server listens on. */
  upstreamPorts?: Record<number, number>;
}

/** Runs one example against `gateway`; resolves to the status of every curl call it made, in order. */
async function runExample(script: string, gateway: CliGateway, { env = {}, readmePort = 4001, upstreamPorts = {} }: Reader = {}): Promise<{ statuses: number[]; output: string }> {
  const port = new URL(gateway.url).port;
  const rewritten = Object.entries({ [readmePort]: port, ...upstreamPorts }).reduce(
    (text, [from, to]) => text.replace(new RegExp(`\\b(127\\.0\\.0\\.1|localhost):${from}\\b`, "g"), `127.0.0.1:${to}`),
    script,
  );
  const result = await execa("bash", ["-c", STATUS_REPORTER + rewritten], { cwd: ROOT, env, reject: false, timeout: 60_000 });
  const statuses = [...result.stderr.matchAll(/README_CURL_STATUS=(\d+)/g)].map((match) => Number(match[1]));
  return { statuses, output: `exit ${result.exitCode}\n--- script ---\n${rewritten}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}` };
}

/** Runs the example, expecting every curl call to answer 2xx; resolves to what it printed. */
async function expectEveryCallSucceeds(script: string, gateway: CliGateway, reader?: Reader): Promise<string> {
  const { statuses, output } = await runExample(script, gateway, reader);
  // A failure shows the gateway's side too: whether it still runs, and what it printed last.
  const failure = `${output}\n${gateway.describe()}`;
  expect(statuses, failure).toHaveLength(curlCalls(script));
  for (const status of statuses) expect(status, failure).toBeGreaterThanOrEqual(200);
  for (const status of statuses) expect(status, failure).toBeLessThan(300);
  return output;
}

describe("the README's examples, against the built CLI", () => {
  let gateway: CliGateway;

  beforeAll(async () => {
    gateway = await startCli({ PORT: "0", LOG_LEVEL: "warn" });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it.each(["Try it", "A2A", "Authentication", "Your own graphs", "Scheduling a daily message", "Projects", "Model providers", "Web apps", "API keys", "MCP servers", "Assistants as MCP tools", "Plugins", "Tasks", "Rooms"])("the section %j has curl examples", (heading) => {
    expect(curlExamples(heading).length).toBeGreaterThan(0);
  });

  // In README order: later examples use what earlier ones created (the assistant, the thread).
  it("Try it: every curl answers 2xx", async () => {
    for (const script of curlExamples("Try it")) await expectEveryCallSucceeds(script, gateway);
  });

  it("A2A: every curl answers 2xx, the card names the endpoint, and the answer is the task's artifact in 1.0's JSON and in 0.3's", async () => {
    const [example] = curlExamples("A2A");
    const shown = await expectEveryCallSucceeds(example, gateway);
    expect(shown).toContain(`"supportedInterfaces":[{"url":"${gateway.url}/a2a/my-assistant","protocolBinding":"JSONRPC"`);
    expect(shown).toMatch(/"status":\{"state":"TASK_STATE_COMPLETED"[^\n]*"artifacts":\[\{"artifactId":"answer","name":"answer","parts":\[\{"text":"echo: hello"\}\]/);
    expect(shown).toMatch(/"kind":"task"[^\n]*"status":\{"state":"completed"/);
  });

  it("An A2A client: the example prints what its comments say, against the gateway", async () => {
    const [example] = jsExamples("An A2A client");
    const port = new URL(gateway.url).port;
    const rewritten = example.replace(/127\.0\.0\.1:4001/g, `127.0.0.1:${port}`);
    // Resolved from the gateway's package, which has the A2A SDK, as a reader's project would.
    const result = await execa("node", ["--input-type=module", "-e", rewritten], { cwd: resolve(ROOT, "apps/gateway"), reject: false, timeout: 60_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n"), result.stderr).toEqual(printedAsCommented(example));
  });

  it("Scheduling a daily message: every curl answers 2xx", async () => {
    for (const script of curlExamples("Scheduling a daily message")) await expectEveryCallSucceeds(script, gateway);
  });

  it("Projects: every curl answers 2xx", async () => {
    for (const script of curlExamples("Projects")) await expectEveryCallSucceeds(script, gateway);
  });

  it("Model providers: every curl answers 2xx, no answer shows the key, the list answers a page, the API (served here) is reachable and discovered", async () => {
    // The README's local API (Ollama's port): a real server speaking Ollama's GET /api/tags.
    const api = new FakeModelListApi("ollama");
    await api.start();
    try {
      for (const script of curlExamples("Model providers")) {
        const shown = await expectEveryCallSucceeds(script, gateway, { upstreamPorts: { 11434: Number(new URL(api.origin).port) } });
        expect(shown).not.toMatch(/"api_key":"sk-/);
        expect(shown).toContain('"has_api_key":true');
        expect(shown).toMatch(/"providers":\[\{"id":"local-llm".*\],"next_cursor":null,"has_more":false\}/);
        expect(shown).toMatch(/\{"reachable":true,"latency_ms":\d+,"models_count":2\}/);
        expect(shown).toContain('{"models_count":2,"added":2,"vanished":0,"listed_count":2,"truncated":false}');
        expect(shown).toMatch(/\{"models":\[\{"provider_id":"local-llm","model":"model-a","enabled":true,"available":true,.*\],"next_cursor":null,"has_more":false\}/);
      }
      expect(api.authorizations).toEqual(["Bearer sk-rotated", "Bearer sk-rotated"]);
    } finally {
      await api.stop();
    }
  });

  it("Web apps: every curl answers 2xx, the end user's answer streams, and the secret is shown once", async () => {
    const [example] = curlExamples("Web apps");
    const shown = await expectEveryCallSucceeds(example, gateway);
    expect(shown).toContain('{"type":"done","status":"success"}');
    expect(shown).toMatch(/"messages":\[\{"id":"[^"]*","role":"user","content":"hello"\},\{"id":"[^"]*","role":"assistant","content":"echo: hello"\}\]/);
    expect(shown).toContain('"user_id":"operator-preview"');
    expect(shown).toMatch(/"user_id":"visitor:[0-9a-f-]{36}"/);
  });

  // After "Try it", whose assistant and thread the key is restricted to and runs.
  it("API keys: the key is shown once, confines its holder to its assistant, runs it, and is refused (401) once revoked", async () => {
    const [example] = curlExamples("API keys");
    const { statuses, output } = await runExample(example, gateway);
    const failure = `${output}\n${gateway.describe()}`;
    expect(statuses, failure).toEqual([201, 200, 200, 200, 204, 401]);
    const stdout = output.slice(output.indexOf("--- stdout ---"), output.indexOf("--- stderr ---"));
    // The restricted key lists my-assistant alone (not the web apps section's shop-helper).
    expect(stdout, failure).toContain('{"assistants":[{"id":"my-assistant",');
    expect(stdout, failure).not.toContain('"shop-helper"');
    expect(stdout, failure).toContain('"status":"success"');
    expect(stdout, failure).toContain('"code":"UNAUTHENTICATED"');
    // Listed by its prefix: the key itself never shows again.
    expect(stdout, failure).toMatch(/"prefix":"lat_[A-Za-z0-9_-]{8}"/);
    expect(stdout, failure).not.toMatch(/lat_[A-Za-z0-9_-]{43}/);
  });

  it("MCP servers: every curl answers 2xx, the run calls the server's tool, and headers and env show by name only", async () => {
    const [tools, secrets] = curlExamples("MCP servers");
    expect(await expectEveryCallSucceeds(tools, gateway)).toContain("calc__add returned: 5");
    const shown = await expectEveryCallSucceeds(secrets, gateway);
    expect(shown).toContain('"header_names":["Authorization"]');
    expect(shown).toContain('"timeout":10000,"env_names":["FIXTURE_TOKEN"]');
    expect(shown.slice(shown.indexOf("--- stdout ---"))).not.toMatch(/example-token|example-secret/);
  });

  // After "Try it", whose assistant it lists and calls; the SDK client example runs in e2e scenario 32.
  it("Assistants as MCP tools: every curl answers 2xx, the list holds Try it's assistant under the name shown, and the call answers its echo", async () => {
    const [example] = curlExamples("Assistants as MCP tools");
    const shown = await expectEveryCallSucceeds(example, gateway);
    expect(shown).toContain('"name":"Echo_de115745db","title":"Echo"');
    expect(shown).toMatch(/"content":\[\{"type":"text","text":"echo: hello from MCP"\}\],"structuredContent":\{"answer":"echo: hello from MCP","thread_id":"[^"]+"\}/);
  });

  it("Plugins: every curl answers 2xx, and echo is switched off, then on", async () => {
    for (const script of curlExamples("Plugins")) {
      const answers = await expectEveryCallSucceeds(script, gateway);
      expect(answers).toContain('"name":"echo","source":"builtin","description":"Returns the given text unchanged.","enabled":false');
      expect(answers.lastIndexOf('"enabled":true}')).toBeGreaterThan(answers.indexOf('"enabled":false}'));
    }
  });

  // The examples wait for the event stream and for runs: seconds, by design.
  it("Tasks: every curl answers 2xx", { timeout: 30_000 }, async () => {
    for (const script of curlExamples("Tasks")) await expectEveryCallSucceeds(script, gateway);
  });

  it("Rooms: every curl answers 2xx, and the reconnect with Last-Event-ID replays the message posted while away", { timeout: 20_000 }, async () => {
    const [post, follow] = curlExamples("Rooms");
    await expectEveryCallSucceeds(post, gateway);
    expect(await expectEveryCallSucceeds(follow, gateway)).toMatch(/id: \S+\ndata: \{[^\n]*"content":"Missed while away"/);
  });

  it("Authentication: every curl answers 2xx from the section's second gateway (authentication on, port 4002), with SECRET as the section sets it", async () => {
    const authenticated = await startCli({ PORT: "0", LOG_LEVEL: "warn", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: AUTH_SECRET });
    try {
      for (const script of curlExamples("Authentication")) await expectEveryCallSucceeds(script, authenticated, { env: { SECRET: AUTH_SECRET }, readmePort: 4002 });
    } finally {
      await authenticated.stop();
    }
  });

  it("Your own graphs: every curl answers 2xx from the section's gateway (examples/my-graph, port 4003), and the graph answers as its comment says", async () => {
    const withGraph = await startCli({ PORT: "0", LOG_LEVEL: "warn", AXIOM_LANGGRAPH_CONFIG: resolve(ROOT, "examples/my-graph/langgraph.json") });
    try {
      const [script] = curlExamples("Your own graphs");
      const output = await expectEveryCallSucceeds(script, withGraph, { readmePort: 4003 });
      expect(output).toContain('{"name":"Ada","greeting":"Hello, Ada!"}');
      expect(output).toContain('"graphs":["react","hello"]');
    } finally {
      await withGraph.stop();
    }
  });

  it.each(["The agent runtime as a library", "The task store"])("%s: the example prints what its comments say", async (heading) => {
    const examples = jsExamples(heading);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const expected = printedAsCommented(example);
      expect(expected.length, example).toBeGreaterThan(0);
      const result = await execa("node", ["--input-type=module", "-e", example], { cwd: resolve(ROOT, "packages/agent"), reject: false, timeout: 60_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout.trim().split("\n"), result.stderr).toEqual(expected);
    }
  });

  it("no section exports a setting into the reader's shell, so each works after any other", () => {
    const exported = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((match) => match[1].match(/^\s*export\s+\w+=.*$/gm) ?? []);
    expect(exported).toEqual([]);
  });
});
