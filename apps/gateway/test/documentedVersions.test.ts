import { execa } from "execa";
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliGateway, startCli } from "./cliProcess";

// The versions the changesets pipeline wrote into the manifests are the ones the gateway reports and
// the docs name (issue 41: the README said "new in gateway 5" while everything reported 4.8.0).

const ROOT = resolve(__dirname, "../../..");
const PUBLISHED = ["protocols", "core", "pg-stores", "agent", "gateway"] as const;
const MANIFEST_DIRS: Record<(typeof PUBLISHED)[number], string> = {
  protocols: "packages/protocols",
  core: "packages/core",
  "pg-stores": "packages/pg-stores",
  agent: "packages/agent",
  gateway: "apps/gateway",
};

function manifestVersion(dir: string): string {
  return (JSON.parse(readFileSync(resolve(ROOT, dir, "package.json"), "utf8")) as { version: string }).version;
}

const GATEWAY_PACKAGE_VERSION = manifestVersion(MANIFEST_DIRS.gateway);
const GATEWAY_MAJOR = semver.major(GATEWAY_PACKAGE_VERSION);

/** The prose a user reads: the README, docs/ and each published package's README (not the CHANGELOGs, which keep history). */
const DOCS = ["README.md", ...readdirSync(resolve(ROOT, "docs")).filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`), ...Object.values(MANIFEST_DIRS).map((dir) => `${dir}/README.md`)].map(
  (path) => ({ path, text: readFileSync(resolve(ROOT, path), "utf8") }),
);

/** Each place a text names a version, with the line it is on. */
function mentions(text: string, pattern: RegExp): Array<{ value: string; line: string }> {
  return [...text.matchAll(pattern)].map((match) => ({ value: match[1], line: text.slice(text.lastIndexOf("\n", match.index) + 1, text.indexOf("\n", match.index)) }));
}

describe("the versions the docs name", () => {
  it.each(DOCS)("$path names the gateway's own major version wherever it says `gateway N`", ({ text }) => {
    // "`@axiom-lattice/gateway` 5", "gateway 5": a major, not a figure ("gateway 8.4 ms").
    for (const { value, line } of mentions(text, /(?:@axiom-lattice\/gateway`?|\bgateway`?) v?(\d+)(?![\d.]|\s*(?:ms|s|runs|%))/g)) {
      expect(Number(value), line).toBe(GATEWAY_MAJOR);
    }
    // "the 4.x gateway": an earlier line, never one not released yet.
    for (const { value, line } of mentions(text, /\b(\d+)\.x\b/g)) expect(Number(value), line).toBeLessThanOrEqual(GATEWAY_MAJOR);
  });

  it("the README's list of package versions is each manifest's version", () => {
    const listed = [...DOCS[0].text.matchAll(/`(?:@axiom-lattice\/)?(protocols|core|pg-stores|agent|gateway)`\s+(\d+\.\d+\.\d+)/g)].map((match) => [match[1], match[2]]);
    expect(new Set(listed.map(([name]) => name))).toEqual(new Set(PUBLISHED));
    for (const [name, version] of listed) expect(version, name).toBe(manifestVersion(MANIFEST_DIRS[name as (typeof PUBLISHED)[number]]));
  });
});

describe("the version the built gateway reports", () => {
  let gateway: CliGateway;

  beforeAll(async () => {
    gateway = await startCli({ PORT: "0", LOG_LEVEL: "warn" });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it("--version prints the manifest's version (a build older than the manifest fails here)", async () => {
    const { stdout } = await execa(process.execPath, [CLI, "--version"]);
    expect(stdout).toBe(GATEWAY_PACKAGE_VERSION);
  });

  it("GET / and GET /health answer the manifest's version", async () => {
    for (const path of ["/", "/health"]) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { version?: string }).version, path).toBe(GATEWAY_PACKAGE_VERSION);
    }
  });
});
