import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The `dist` folder of a workspace package the gateway serves pages from (the playground, the embed),
 * when the package is installed beside the gateway: they are private, so present only in a checkout.
 */
export function builtPackageDist(packageName: string): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${packageName}/package.json`)), "dist");
  } catch {
    return undefined;
  }
}
