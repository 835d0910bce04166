import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

// The README says Node.js 20: every package the workspace installs must say it runs there too, or
// installing warns (pnpm-workspace.yaml's overrides choose such versions where the newest do not).
const ROOT = resolve(__dirname, "../../..");
const { engines } = JSON.parse(readFileSync(resolve(__dirname, "../package.json"), "utf8")) as { engines: { node: string } };

describe("Node.js engines", () => {
  it("every package in the lockfile accepts the oldest Node.js the gateway supports", () => {
    const oldest = semver.minVersion(engines.node)?.version;
    expect(oldest).toMatch(/^20\./);
    const lock = readFileSync(resolve(ROOT, "pnpm-lock.yaml"), "utf8");
    const refusing = [...lock.matchAll(/^ {2}'?([^\s']+)'?:\n {4}resolution: .*\n {4}engines: \{node: '?([^'}]+)'?\}/gm)]
      .filter(([, , range]) => !semver.satisfies(oldest as string, range))
      .map(([, name, range]) => `${name} (node ${range})`);
    expect(refusing).toEqual([]);
  });
});
