import { appendFile, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedPackages, workspaceRoot } from "./workspace";
import { copyTrackedWorkspace } from "./workspaceCopy";

// `pnpm build` is turbo's `build` task: a second build must replay everything from the cache, and
// the cache key must move with every file that shapes dist/ (and only with those).

// The fields read here of a task in turbo's run summary (--summarize) and dry run (--dry=json).
interface TaskSummary {
  taskId: string;
  package: string;
  directory: string;
  command: string;
  hash: string;
  cache: { status: "HIT" | "MISS" };
  /** Files the task wrote or restored (empty in a dry run). */
  expandedOutputs: string[];
}

const PUBLISHED = publishedPackages.map(({ name }) => name);

function turbo(cwd: string, args: string[]) {
  return execa("turbo", args, { cwd, preferLocal: true, localDir: workspaceRoot, env: { TURBO_TELEMETRY_DISABLED: "1" } });
}

// Packages without a build script appear with this placeholder command and run nothing.
function buildTasks(tasks: TaskSummary[]): TaskSummary[] {
  return tasks.filter(({ command }) => command !== "<NONEXISTENT>");
}

/** The build tasks turbo would run, from a dry run (nothing is executed). */
async function plannedBuilds(cwd: string): Promise<TaskSummary[]> {
  const { stdout } = await turbo(cwd, ["run", "build", "--dry=json"]);
  return buildTasks((JSON.parse(stdout) as { tasks: TaskSummary[] }).tasks);
}

/** Runs `turbo run build` in the workspace and returns its build tasks from the run summary. */
async function summarizedBuild(): Promise<TaskSummary[]> {
  const { stdout } = await turbo(workspaceRoot, ["run", "build", "--summarize", "--output-logs=errors-only"]);
  const summaryFile = /Summary:\s+(\S+\.json)/.exec(stdout)?.[1];
  if (summaryFile === undefined) throw new Error(`turbo printed no run summary:\n${stdout}`);
  try {
    return buildTasks((JSON.parse(await readFile(summaryFile, "utf8")) as { tasks: TaskSummary[] }).tasks);
  } finally {
    await rm(summaryFile);
  }
}

describe("turbo build cache", () => {
  it("replays every build task, dist/ included, from the cache on a second run", async () => {
    await turbo(workspaceRoot, ["run", "build", "--output-logs=errors-only"]);
    const builds = await summarizedBuild();
    expect(builds.map((task) => task.package)).toEqual(expect.arrayContaining(PUBLISHED));
    expect(builds.filter((task) => task.cache.status !== "HIT").map((task) => task.taskId)).toEqual([]);
    for (const { directory, expandedOutputs } of builds) {
      const dist = path.join(directory, "dist");
      const built = await readdir(path.join(workspaceRoot, dist), { recursive: true });
      expect(expandedOutputs).toEqual(expect.arrayContaining(built.map((file) => path.join(dist, file))));
    }
  });

  describe("build hashes in a copy of the workspace", () => {
    let copy: string;
    let baseline: Map<string, string>;

    async function buildHashes(): Promise<Map<string, string>> {
      return new Map((await plannedBuilds(copy)).map((task) => [task.package, task.hash]));
    }

    /** The published packages whose build hash moves when `file` (relative to the root) changes. */
    async function invalidatedBy(file: string): Promise<string[]> {
      const target = path.join(copy, file);
      const original = await readFile(target);
      await appendFile(target, "\n"); // any byte counts; a newline keeps JSON and TS valid
      try {
        const hashes = await buildHashes();
        return PUBLISHED.filter((name) => hashes.get(name) !== baseline.get(name));
      } finally {
        await writeFile(target, original);
      }
    }

    beforeAll(async () => {
      copy = await copyTrackedWorkspace();
      baseline = await buildHashes();
    });

    afterAll(async () => {
      if (copy) await rm(copy, { recursive: true, force: true });
    });

    it("move for every package when the shared compiler settings change", async () => {
      expect(await invalidatedBy("tsconfig.base.json")).toEqual(PUBLISHED);
    });

    it("move for a package and its dependents when its source changes", async () => {
      expect(await invalidatedBy("packages/protocols/src/index.ts")).toEqual(PUBLISHED);
      expect(await invalidatedBy("packages/pg-stores/package.json")).toEqual(["@axiom-lattice/pg-stores", "@axiom-lattice/gateway"]);
    });

    it("stay put when only tests or documents change", async () => {
      const tests = await readdir(path.join(copy, "packages/protocols/test"), { recursive: true });
      const testFile = tests.find((file) => file.endsWith(".test.ts"));
      expect(testFile).toBeDefined();
      expect(await invalidatedBy(`packages/protocols/test/${testFile}`)).toEqual([]);
      expect(await invalidatedBy("README.md")).toEqual([]);
    });
  });
});
