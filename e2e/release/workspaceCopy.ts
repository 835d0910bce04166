import { copyFile, mkdir, mkdtemp, realpath, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { workspaceRoot } from "./workspace";

/**
 * Copies the workspace's git-tracked files (as they are in the working tree) into a new temporary
 * directory, so a test can run release tooling that rewrites files without touching the checkout.
 * `node_modules` is linked, not copied: changesets resolves its changelog generator from there.
 */
export async function copyTrackedWorkspace(): Promise<string> {
  // Real path: pnpm and node report folders by their real path, and TMPDIR may be a symlink.
  const copy = await realpath(await mkdtemp(path.join(os.tmpdir(), "axiom-lattice-workspace-")));
  const { stdout } = await execa("git", ["ls-files", "-z"], { cwd: workspaceRoot });
  // A tracked file deleted in the working tree is not part of what the next commit will hold.
  const files = stdout.split("\0").filter((file) => file !== "" && existsSync(path.join(workspaceRoot, file)));
  for (const file of files) {
    await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await copyFile(path.join(workspaceRoot, file), path.join(copy, file));
  }
  await symlink(path.join(workspaceRoot, "node_modules"), path.join(copy, "node_modules"));
  return copy;
}
