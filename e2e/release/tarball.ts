import { list } from "tar";
import type { PackageManifest } from "./workspace";

/** What an npm package tarball holds: its entries (relative to `package/`) and its manifest. */
export interface TarballContents {
  files: string[];
  manifest: PackageManifest;
}

const PACKAGE_ROOT = "package/";

export async function readTarball(file: string): Promise<TarballContents> {
  const files: string[] = [];
  const manifestChunks: Buffer[] = [];
  await list({
    file,
    onReadEntry: (entry) => {
      if (entry.type === "Directory") return;
      // An entry outside package/ keeps its full path, so that it shows up as unexpected.
      const relative = entry.path.startsWith(PACKAGE_ROOT) ? entry.path.slice(PACKAGE_ROOT.length) : entry.path;
      files.push(relative);
      if (entry.path === `${PACKAGE_ROOT}package.json`) entry.on("data", (chunk: Buffer) => manifestChunks.push(chunk));
    },
  });
  if (manifestChunks.length === 0) throw new Error(`${file} has no package/package.json`);
  return { files, manifest: JSON.parse(Buffer.concat(manifestChunks).toString("utf8")) as PackageManifest };
}
