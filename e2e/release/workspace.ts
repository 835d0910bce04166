import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

/** The monorepo checkout these tests run in. */
export const workspaceRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The turbo cache `pnpm build` in this checkout fills: `.turbo/cache` of the main working tree (turbo
 * shares it between a repository's git worktrees).
 */
export async function turboCacheDir(): Promise<string> {
  const { stdout } = await execa("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: workspaceRoot });
  return path.join(path.dirname(stdout.trim()), ".turbo", "cache");
}

/** The packages `changeset publish` releases, with their folders in the workspace. */
export const publishedPackages = [
  { name: "@axiom-lattice/protocols", dir: "packages/protocols" },
  { name: "@axiom-lattice/core", dir: "packages/core" },
  { name: "@axiom-lattice/agent", dir: "packages/agent" },
  { name: "@axiom-lattice/pg-stores", dir: "packages/pg-stores" },
  { name: "@axiom-lattice/gateway", dir: "apps/gateway" },
] as const;

export const dependencyFields = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

export type DependencyField = (typeof dependencyFields)[number];

/** The fields of a package.json these tests read. */
export interface PackageManifest extends Partial<Record<DependencyField, Record<string, string>>> {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  module?: string;
  types?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
}

export interface WorkspaceProject {
  name: string;
  version: string;
  /** Absolute path of the project's folder. */
  path: string;
  private: boolean;
}

/** The workspace's projects (the private root excluded), as pnpm sees them from `root`. */
export async function listWorkspaceProjects(root: string = workspaceRoot): Promise<WorkspaceProject[]> {
  const { stdout } = await execa("pnpm", ["ls", "--recursive", "--depth=-1", "--json"], { cwd: root });
  return (JSON.parse(stdout) as WorkspaceProject[]).filter((project) => project.path !== root);
}
