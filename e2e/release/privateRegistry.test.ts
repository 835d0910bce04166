import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalRegistry } from "./localRegistry";
import { listWorkspaceProjects, publishedPackages, turboCacheDir } from "./workspace";
import { copyTrackedWorkspace } from "./workspaceCopy";

// `pnpm release` to a private registry, as the README says to run it: on a fresh copy of the
// workspace (its own install and build), with only `npm_config_registry` naming a local verdaccio.
// Then `@axiom-lattice/gateway` is installed from that registry into an empty project and started.
// The copy's build reads the checkout's turbo cache: its sources are the same files, so turbo replays
// the dist/ the checkout's build made instead of compiling them again (turboCache.test.ts proves the
// replay; what this file checks is what the release does with them).

let registry: LocalRegistry | undefined;
let copy: string | undefined;
let release: { exitCode?: number; all?: string };
const versions = new Map<string, string>();

beforeAll(async () => {
  registry = await LocalRegistry.start();
  copy = await copyTrackedWorkspace();
  for (const project of await listWorkspaceProjects(copy)) versions.set(project.name, project.version);
  // A real checkout of its own: its own node_modules (from the local store, no network) and a git
  // repository, where `changeset publish` tags what it published.
  await rm(path.join(copy, "node_modules"));
  await writeFile(path.join(copy, ".npmrc"), `${registry.authLine}\n`);
  await execa("pnpm", ["install", "--offline", "--frozen-lockfile", "--reporter=silent"], { cwd: copy });
  await execa("git", ["init", "-q"], { cwd: copy });
  await execa("git", ["add", "-A"], { cwd: copy });
  await execa("git", ["-c", "user.name=release-test", "-c", "user.email=release@test.invalid", "commit", "-qm", "release"], { cwd: copy });
  release = await execa("pnpm", ["release"], {
    cwd: copy,
    env: { npm_config_registry: registry.url, TURBO_TELEMETRY_DISABLED: "1", TURBO_CACHE_DIR: await turboCacheDir() },
    reject: false,
    all: true,
    timeout: 300_000,
  });
}, 420_000);

afterAll(async () => {
  await registry?.stop();
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe("pnpm release with npm_config_registry naming a private registry", () => {
  it("succeeds", () => {
    expect(release.exitCode, release.all).toBe(0);
  });

  it.each(publishedPackages.map(({ name }) => name))("publishes %s there at its workspace version", async (name) => {
    expect(await registry!.versionsOf(name)).toEqual([versions.get(name)]);
  });

  it("publishes no private workspace package", async () => {
    const privateNames = [...versions.keys()].filter((name) => !publishedPackages.some((published) => published.name === name));
    expect(privateNames.length).toBeGreaterThan(0);
    for (const name of privateNames) expect(await registry!.versionsOf(name), name).toEqual([]);
  });

  it("installs @axiom-lattice/gateway from it into an empty project, whose lattice-gateway serves /health", async () => {
    const project = path.join(copy!, "..", `${path.basename(copy!)}-consumer`);
    await mkdir(project);
    try {
      await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "0.0.0", private: true }));
      // The scope comes from the private registry, everything else from the default one.
      await writeFile(path.join(project, ".npmrc"), `@axiom-lattice:registry=${registry!.url}\n`);
      await execa("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "@axiom-lattice/gateway"], { cwd: project, timeout: 300_000 });

      const gateway = execa(path.join(project, "node_modules/.bin/lattice-gateway"), {
        cwd: project,
        env: { PORT: "0" },
        reject: false,
        timeout: 60_000,
      });
      let stdout = "";
      const url = await new Promise<string>((resolveUrl, rejectUrl) => {
        gateway.stdout?.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /ready at (http:\/\/[^\s"]+)/.exec(stdout);
          if (match) resolveUrl(match[1]);
        });
        gateway.once("exit", () => rejectUrl(new Error(`the installed gateway exited before it was ready:\n${stdout}`)));
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      gateway.kill("SIGTERM");
      expect((await gateway).exitCode).toBe(0);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 360_000);
});
