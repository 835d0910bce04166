import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtPackageDist } from "../http/builtPackage";

/** Where the chat page is served. */
export const PLAYGROUND_PATH = "/playground";

/** The workspace package that builds the page (apps/playground); private, so present only in a checkout of the repository. */
const PLAYGROUND_PACKAGE = "@axiom-lattice/playground";

/** Where the page is built: the playground package's `dist`, when the package is installed beside the gateway. */
export const findPlaygroundPage = (): string | undefined => builtPackageDist(PLAYGROUND_PACKAGE);

/**
 * Serves the chat page's files at `/playground/` (`/playground` redirects there, so its relative
 * asset paths resolve). The page is public like `/docs`: it holds no data, and every request it
 * makes to the API carries the token its user typed. Without a built page the gateway serves none
 * and says so once. Returns whether it serves the page.
 */
export async function registerPlaygroundPage(app: FastifyInstance, root: string | undefined): Promise<boolean> {
  if (root === undefined || !existsSync(join(root, "index.html"))) {
    app.log.info(`${PLAYGROUND_PATH} is not served: ${PLAYGROUND_PACKAGE} is not installed or not built (pnpm build in the repository builds it)`);
    return false;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: PLAYGROUND_PATH,
    redirect: true,
    // The API reference registers the plugin too; one `reply.sendFile` decorator is enough.
    decorateReply: false,
    // Hashed asset names change with every build; index.html must be read fresh to name them.
    setHeaders: (reply, path) => reply.header("cache-control", path.endsWith("index.html") ? "no-cache" : "public, max-age=31536000, immutable"),
  });
  return true;
}
