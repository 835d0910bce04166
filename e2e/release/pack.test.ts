import { access, constants, copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { allMigrations } from "@axiom-lattice/pg-stores";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTarball, type TarballContents } from "./tarball";
import { dependencyFields, listWorkspaceProjects, publishedPackages, workspaceRoot, type PackageManifest } from "./workspace";

// Packs every published package with `scripts/pack.sh`, the packing step of `pnpm release:pack` (pnpm
// pack on the built dist/, as `changeset publish` would), checks each tarball against its manifest,
// then does what the README's "Installing" says on another machine: copies the tarballs into an empty
// folder, `npm install ./axiom-lattice-*.tgz`, `npx lattice-gateway`. The installed packages are used
// from CommonJS, ESM, TypeScript (node16 resolution), the bin and the README's library example.

interface PackedPackage extends TarballContents {
  name: string;
  tarball: string;
}

// package.json, the build output and the usual documents; anything else in a tarball is a leak.
const SHIPPABLE = /^(package\.json|dist\/.+|(README|LICENSE|LICENCE|CHANGELOG)(\.md|\.txt)?)$/i;

let scratch: string;
const packed: PackedPackage[] = [];
const workspaceVersions = new Map<string, string>();

/** Every file path an `exports` map (conditions and subpaths at any depth) points at. */
function exportTargets(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(exportTargets);
  return [];
}

/** The files a manifest promises to consumers: `exports`, `main`, `module`, `types` and `bin`. */
function promisedFiles(manifest: PackageManifest): string[] {
  const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return [...exportTargets(manifest.exports), manifest.main, manifest.module, manifest.types, ...bins]
    .filter((target): target is string => target !== undefined)
    .map((target) => path.posix.normalize(target));
}

beforeAll(async () => {
  // Real path: node reports resolved modules by their real path, and TMPDIR may be a symlink.
  scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), "axiom-lattice-pack-")));
  for (const project of await listWorkspaceProjects()) workspaceVersions.set(project.name, project.version);
  // The packing step alone: `pnpm release:pack` builds first, and a build here could rewrite dist/
  // under tests running beside this one (the suite builds before it runs).
  const { stdout } = await execa("bash", [path.join(workspaceRoot, "scripts/pack.sh"), path.join(scratch, "tarballs")]);
  for (const tarball of stdout.split("\n").filter(Boolean)) {
    const contents = await readTarball(tarball);
    packed.push({ name: contents.manifest.name, tarball, ...contents });
  }
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it("packs every published package, once, and nothing else", () => {
  expect(packed.map(({ name }) => name).sort()).toEqual(publishedPackages.map(({ name }) => name).sort());
});

describe.each(publishedPackages.map(({ name }) => name))("the tarball of %s", (name) => {
  const tarball = () => packed.find((candidate) => candidate.name === name)!;

  it("holds every file its manifest promises", () => {
    const { files, manifest } = tarball();
    const promised = promisedFiles(manifest);
    expect(promised).toContain("dist/index.d.mts");
    expect(files).toEqual(expect.arrayContaining(promised));
  });

  it("ships a README.md and the repository's LICENSE", async () => {
    expect(tarball().files).toEqual(expect.arrayContaining(["README.md", "LICENSE"]));
    const { dir } = publishedPackages.find((candidate) => candidate.name === name)!;
    // pnpm pack ships the package folder's LICENSE: it must be the repository's, word for word.
    expect(await readFile(path.join(workspaceRoot, dir, "LICENSE"), "utf8")).toBe(await readFile(path.join(workspaceRoot, "LICENSE"), "utf8"));
  });

  it("ships nothing but package.json, dist/ and documents", () => {
    expect(tarball().files.filter((file) => !SHIPPABLE.test(file))).toEqual([]);
  });

  it("pins internal dependencies to the exact workspace versions", () => {
    const { manifest } = tarball();
    for (const field of dependencyFields) {
      for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
        expect(range, `${field}.${dependency}`).not.toMatch(/^workspace:/);
        if (workspaceVersions.has(dependency)) expect(range, `${field}.${dependency}`).toBe(workspaceVersions.get(dependency));
      }
    }
  });
});

describe("the tarballs installed as the README says: npm install ./axiom-lattice-*.tgz in an empty folder", () => {
  let project: string;

  const nodeModule = (name: string, ...rest: string[]) => path.join(project, "node_modules", name, ...rest);

  async function runProbe(file: string, source: string): Promise<Record<string, unknown>> {
    await writeFile(path.join(project, file), source);
    const { stdout } = await execa("node", [file], { cwd: project });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  beforeAll(async () => {
    // The folder an operator copies the tarballs into on another machine: nothing else, not even a package.json.
    project = path.join(scratch, "consumer");
    await mkdir(project);
    for (const entry of packed) {
      entry.tarball = path.join(project, path.basename(entry.tarball));
      await copyFile(path.join(scratch, "tarballs", path.basename(entry.tarball)), entry.tarball);
    }
    // Installed together, the tarballs satisfy each other's exact internal versions, so npm has no
    // reason to ask the registry for @axiom-lattice/*; the lockfile test below proves it did not.
    // The README's command word for word; quicker through npm's environment: no audit, no funding
    // notes, the local cache first, no install scripts of dependencies.
    const quick = { npm_config_audit: "false", npm_config_fund: "false", npm_config_prefer_offline: "true", npm_config_ignore_scripts: "true" };
    await execa("bash", ["-c", "npm install ./axiom-lattice-*.tgz"], { cwd: project, env: quick });
  }, 300_000);

  it("resolves every @axiom-lattice package to its local tarball, once", async () => {
    const lockfile = JSON.parse(await readFile(path.join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string }>;
    };
    const installed = Object.entries(lockfile.packages).filter(([key]) => key.includes("node_modules/@axiom-lattice/"));
    expect(installed.map(([key]) => key).sort()).toEqual(publishedPackages.map(({ name }) => `node_modules/${name}`).sort());
    for (const [key, { resolved }] of installed) {
      const { tarball } = packed.find(({ name }) => key === `node_modules/${name}`)!;
      expect(resolved, key).toBe(`file:${path.relative(project, tarball)}`);
    }
  });

  // One probe body for both module systems: the known exports, and the file each package loaded from.
  const probeBody = `
const names = ${JSON.stringify(publishedPackages.map(({ name }) => name))};
const isClass = (value) => typeof value === "function" && /^class\\b/.test(Function.prototype.toString.call(value));
console.log(JSON.stringify({
  REPLICA_HEADER: protocols.REPLICA_HEADER,
  getReplicaId: typeof core.getReplicaId,
  AgentInstanceManagerIsClass: isClass(agent.AgentInstanceManager),
  PostgreSQLLeaseStoreIsClass: isClass(pgStores.PostgreSQLLeaseStore),
  migrations: pgStores.allMigrations.map((migration) => migration.version),
  buildGateway: typeof gateway.buildGateway,
  entries: Object.fromEntries(names.map((name) => [name, entryOf(name)])),
}));
`;

  function expectKnownExports(probe: Record<string, unknown>, entryFile: string): void {
    expect(probe).toEqual({
      REPLICA_HEADER: "x-axiom-replica",
      getReplicaId: "function",
      AgentInstanceManagerIsClass: true,
      PostgreSQLLeaseStoreIsClass: true,
      // The .sql migrations are read from the installed package's dist/migrations at run time.
      migrations: allMigrations.map((migration) => migration.version),
      buildGateway: "function",
      entries: Object.fromEntries(publishedPackages.map(({ name }) => [name, nodeModule(name, entryFile)])),
    });
  }

  it("loads from CommonJS through the require condition", async () => {
    const probe = await runProbe(
      "probe.cjs",
      `const protocols = require("@axiom-lattice/protocols");
const core = require("@axiom-lattice/core");
const agent = require("@axiom-lattice/agent");
const pgStores = require("@axiom-lattice/pg-stores");
const gateway = require("@axiom-lattice/gateway");
const entryOf = (name) => require.resolve(name);
${probeBody}`,
    );
    expectKnownExports(probe, "dist/index.js");
  });

  it("loads from ESM through the import condition", async () => {
    const probe = await runProbe(
      "probe.mjs",
      `import { fileURLToPath } from "node:url";
import * as protocols from "@axiom-lattice/protocols";
import * as core from "@axiom-lattice/core";
import * as agent from "@axiom-lattice/agent";
import * as pgStores from "@axiom-lattice/pg-stores";
import * as gateway from "@axiom-lattice/gateway";
const entryOf = (name) => fileURLToPath(import.meta.resolve(name));
${probeBody}`,
    );
    expectKnownExports(probe, "dist/index.mjs");
  });

  it("type-checks from .cts and .mts files under node16 resolution", async () => {
    // Each @ts-expect-error fails the check ("unused directive") if the import resolved to `any`.
    const source = `import { REPLICA_HEADER } from "@axiom-lattice/protocols";
import { getReplicaId } from "@axiom-lattice/core";
import { AgentInstanceManager } from "@axiom-lattice/agent";
import { PostgreSQLLeaseStore } from "@axiom-lattice/pg-stores";
import { buildGateway } from "@axiom-lattice/gateway";

export const header: "x-axiom-replica" = REPLICA_HEADER;
export const replicaId: string = getReplicaId();
export const agentRuntime: typeof AgentInstanceManager = AgentInstanceManager;
export const leaseStore: typeof PostgreSQLLeaseStore = PostgreSQLLeaseStore;
export const build: typeof buildGateway = buildGateway;
// @ts-expect-error a string literal is not a number
export const headerIsTyped: number = REPLICA_HEADER;
// @ts-expect-error a function is not a number
export const getReplicaIdIsTyped: number = getReplicaId;
// @ts-expect-error a class is not a number
export const agentRuntimeIsTyped: number = AgentInstanceManager;
// @ts-expect-error a class is not a number
export const leaseStoreIsTyped: number = PostgreSQLLeaseStore;
// @ts-expect-error a function is not a number
export const buildGatewayIsTyped: number = buildGateway;
`;
    await writeFile(path.join(project, "types.cts"), source);
    await writeFile(path.join(project, "types.mts"), source);
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "node16",
          moduleResolution: "node16",
          target: "es2022",
          lib: ["es2022"],
          strict: true,
          noEmit: true,
          // The packages' declarations and those they pull in are checked (no skipLibCheck); only
          // TypeScript's own lib files are skipped, which saves most of the time.
          skipDefaultLibCheck: true,
          // The consumer has no @types/node of its own; the workspace's serves the packages' node types.
          typeRoots: [path.join(workspaceRoot, "node_modules/@types")],
          types: ["node"],
        },
        files: ["types.cts", "types.mts"],
      }),
    );
    const result = await execa("tsc", ["--project", "tsconfig.json", "--listFiles", "--pretty", "false"], {
      cwd: project,
      preferLocal: true,
      localDir: workspaceRoot,
      reject: false,
    });
    const lines = result.stdout.split("\n");
    const errors = lines.filter((line) => /(^|: )error TS\d+:/.test(line));
    // Errors inside other libraries' declarations (e.g. @langchain/core's .d.cts under node16) are
    // theirs to fix; an error in our declarations or in the consumer's files fails the test.
    expect(errors.filter((line) => !/^node_modules\/(?!@axiom-lattice\/)/.test(line))).toEqual([]);
    expect(result.exitCode === 0 || errors.length > 0, result.stderr).toBe(true);
    for (const { name } of publishedPackages) {
      // --listFiles proves which declaration file each module system resolved to.
      expect(lines).toContain(nodeModule(name, "dist/index.d.ts"));
      expect(lines).toContain(nodeModule(name, "dist/index.d.mts"));
    }
  });

  it("installs an executable lattice-gateway bin that refuses PORT=abc with exit code 2", async () => {
    const bin = path.join(project, "node_modules/.bin/lattice-gateway");
    await access(bin, constants.X_OK);
    const result = await execa(bin, { env: { PORT: "abc" }, reject: false, timeout: 30_000 });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain("PORT");
  });

  it("starts with `npx lattice-gateway` and serves /health", async () => {
    // Its own process group: npx runs the bin under a shell, which a signal to npx alone could orphan.
    const gateway = execa("npx", ["lattice-gateway"], { cwd: project, env: { PORT: "0" }, detached: true, reject: false, all: true });
    let output = "";
    try {
      const url = await new Promise<string>((resolveUrl, rejectUrl) => {
        gateway.all?.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const ready = /gateway ready at (http:\/\/[^\s"]+)/.exec(output);
          if (ready) resolveUrl(ready[1]);
        });
        void gateway.then(({ exitCode }) => rejectUrl(new Error(`npx lattice-gateway exited (${exitCode}) before it was ready:\n${output}`)));
      });
      const health = await fetch(`${url}/health`);
      expect(health.status, output).toBe(200);
    } finally {
      if (gateway.pid !== undefined) process.kill(-gateway.pid, "SIGTERM");
      await gateway;
    }
  }, 60_000);

  it("runs the README's \"The agent runtime as a library\" example as written, printing what its comments say", async () => {
    const readme = await readFile(path.join(workspaceRoot, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n### The agent runtime as a library\n"), readme.indexOf("\n### The task store\n"));
    const example = /^```js\n([\s\S]*?)^```$/m.exec(section)?.[1];
    expect(example, "the section's js example").toBeDefined();
    // What the example prints: the `// ` comment lines after its console.log.
    const lines = example!.split("\n");
    const afterLog = lines.slice(lines.findIndex((line) => line.startsWith("console.log(")) + 1);
    const comments = afterLog.findIndex((line) => !line.startsWith("// "));
    const printed = afterLog.slice(0, comments === -1 ? afterLog.length : comments).map((line) => line.slice(3));
    expect(printed.length).toBeGreaterThan(0);
    await writeFile(path.join(project, "example.mjs"), example!);
    const result = await execa("node", ["example.mjs"], { cwd: project, reject: false, timeout: 60_000 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual(printed);
  });
});
