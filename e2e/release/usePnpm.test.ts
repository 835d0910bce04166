import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { expect, it } from "vitest";
import { workspaceRoot } from "./workspace";

// The README's "One pnpm": after `source scripts/use-pnpm.sh`, `pnpm` in that shell is the version
// package.json pins, even with a global pnpm of another version first on PATH (here a stand-in that
// answers 99.0.0), as scripts/start.sh's is.

it("source scripts/use-pnpm.sh puts the pinned pnpm before another one on PATH", { timeout: 120_000 }, async () => {
  const { packageManager } = JSON.parse(await readFile(path.join(workspaceRoot, "package.json"), "utf8")) as { packageManager: string };
  const pinned = packageManager.split("@")[1];
  const globalBin = await mkdtemp(path.join(os.tmpdir(), "axiom-lattice-global-pnpm-"));
  try {
    await writeFile(path.join(globalBin, "pnpm"), "#!/bin/sh\necho 99.0.0\n");
    await chmod(path.join(globalBin, "pnpm"), 0o755);
    const result = await execa("bash", ["-c", "source scripts/use-pnpm.sh >/dev/null && pnpm --version"], {
      cwd: workspaceRoot,
      env: { PATH: `${globalBin}${path.delimiter}${process.env.PATH}` },
      reject: false,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(pinned);
  } finally {
    await rm(globalBin, { recursive: true, force: true });
  }
});
