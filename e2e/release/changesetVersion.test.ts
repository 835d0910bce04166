import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listWorkspaceProjects, publishedPackages, workspaceRoot, type PackageManifest } from "./workspace";
import { copyTrackedWorkspace } from "./workspaceCopy";

// `changeset version` on a throw-away copy of the workspace, with one changeset bumping protocols.

const BUMPED = "@axiom-lattice/protocols";
const DEPENDENTS = ["@axiom-lattice/core", "@axiom-lattice/agent", "@axiom-lattice/pg-stores", "@axiom-lattice/gateway"];
const CHANGESET_FILE = "release-pipeline-check.md";
const SUMMARY = "Release pipeline check: a minor change to the protocols.";

let copy: string;
/** Absolute folder of every workspace project in the copy, by name. */
const dirs = new Map<string, string>();
const before = new Map<string, PackageManifest>();
const after = new Map<string, PackageManifest>();

async function readManifest(dir: string): Promise<PackageManifest> {
  return JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as PackageManifest;
}

function changelogOf(name: string): Promise<string> {
  return readFile(path.join(dirs.get(name)!, "CHANGELOG.md"), "utf8");
}

/** The CHANGELOG text written for one version, up to the previous version's heading. */
function releaseSection(changelog: string, version: string): string {
  const start = changelog.indexOf(`## ${version}\n`);
  expect(start, `CHANGELOG has a section for ${version}`).toBeGreaterThanOrEqual(0);
  const end = changelog.indexOf("\n## ", start + 1);
  return changelog.slice(start, end === -1 ? undefined : end);
}

function versionOf(map: Map<string, PackageManifest>, name: string): string {
  return map.get(name)!.version;
}

beforeAll(async () => {
  copy = await copyTrackedWorkspace();
  const changesetDir = path.join(copy, ".changeset");
  // The repo's own pending changesets would add bumps of their own; removing them from the copy
  // makes every expected version exact whatever is pending when this runs.
  for (const file of await readdir(changesetDir)) {
    if (file.endsWith(".md") && file !== "README.md") await rm(path.join(changesetDir, file));
  }
  await writeFile(path.join(changesetDir, CHANGESET_FILE), `---\n"${BUMPED}": minor\n---\n\n${SUMMARY}\n`);

  for (const project of await listWorkspaceProjects(copy)) {
    dirs.set(project.name, project.path);
    before.set(project.name, await readManifest(project.path));
  }

  await execa("changeset", ["version"], { cwd: copy, preferLocal: true, localDir: workspaceRoot });

  for (const [name, dir] of dirs) after.set(name, await readManifest(dir));
});

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe("changeset version", () => {
  it("bumps the changed package by its changeset's bump type and writes the summary to its CHANGELOG", async () => {
    const version = versionOf(after, BUMPED);
    expect(version).toBe(semver.inc(versionOf(before, BUMPED), "minor"));
    const section = releaseSection(await changelogOf(BUMPED), version);
    expect(section).toContain(`### Minor Changes\n\n- ${SUMMARY}`);
  });

  it("consumes the changeset", () => {
    expect(existsSync(path.join(copy, ".changeset", CHANGESET_FILE))).toBe(false);
  });

  it.each(DEPENDENTS)("patches the dependent %s with an 'Updated dependencies' entry", async (name) => {
    const version = versionOf(after, name);
    // .changeset/config.json: updateInternalDependencies "patch".
    expect(version).toBe(semver.inc(versionOf(before, name), "patch"));

    const internal = Object.keys(after.get(name)!.dependencies ?? {}).filter((dependency) => dirs.has(dependency));
    expect(internal).toContain(BUMPED);
    const section = releaseSection(await changelogOf(name), version);
    expect(section).toContain("### Patch Changes\n\n- Updated dependencies\n");
    for (const dependency of internal) expect(section).toContain(`\n  - ${dependency}@${versionOf(after, dependency)}`);
  });

  it.each(DEPENDENTS)("leaves internal ranges of %s valid for the new versions", (name) => {
    const ranges = after.get(name)!.dependencies ?? {};
    for (const [dependency, range] of Object.entries(ranges)) {
      if (!dirs.has(dependency)) continue;
      // `workspace:*` is left as it is (pnpm pack pins it); any other range must admit the new version.
      if (before.get(name)!.dependencies![dependency] === "workspace:*") expect(range).toBe("workspace:*");
      expect(semver.satisfies(versionOf(after, dependency), range.replace(/^workspace:/, ""))).toBe(true);
    }
  });

  it("leaves private workspace packages unversioned", () => {
    const privatePackages = [...before.values()].filter((manifest) => manifest.private);
    expect(privatePackages.length).toBeGreaterThan(0);
    for (const { name, version } of privatePackages) {
      expect(versionOf(after, name)).toBe(version);
      expect(existsSync(path.join(dirs.get(name)!, "CHANGELOG.md"))).toBe(false);
    }
  });
});

describe("the pending changesets", () => {
  // changesets treats private packages as ignored, and refuses a changeset that names both an ignored
  // package and another ("Mixed changesets … are not allowed"): one such file stops the whole release.
  it("name only the packages a release versions", async () => {
    const published = new Set<string>(publishedPackages.map(({ name }) => name));
    const dir = path.join(workspaceRoot, ".changeset");
    for (const file of (await readdir(dir)).filter((name) => name.endsWith(".md") && name !== "README.md")) {
      const frontMatter = /^---\n([\s\S]*?)\n---/.exec(await readFile(path.join(dir, file), "utf8"))?.[1] ?? "";
      const named = [...frontMatter.matchAll(/^"([^"]+)":/gm)].map((match) => match[1]);
      expect(named.length, file).toBeGreaterThan(0);
      for (const name of named) expect(published.has(name), `${file} names ${name}, which is not published`).toBe(true);
    }
  });
});
