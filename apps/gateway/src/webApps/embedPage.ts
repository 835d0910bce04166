import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { builtPackageDist } from "../http/builtPackage";
import { HttpError } from "../http/errors";
import { idSchema } from "../http/ids";
import { errorResponses } from "../openapi/errorResponses";
import type { GatewayStores } from "../stores/gatewayStores";

/** Where the page's scripts and styles are served (hashed names, so cached for good). */
export const EMBED_ASSETS_PATH = "/embed/assets";

/** The workspace package that builds the page and the host script (apps/embed); private, so present only in a checkout. */
const EMBED_PACKAGE = "@axiom-lattice/embed";

/** Where the page and the host script are built: the embed package's `dist`, when it is installed beside the gateway. */
export const findEmbedBuild = (): string | undefined => builtPackageDist(EMBED_PACKAGE);

/**
 * Helmet's policy for the page, but for who may frame it: the web app's allowed origins only (none:
 * nobody). The browser enforces it, so a page on another origin cannot even show the chat.
 */
function pagePolicy(allowedOrigins: readonly string[]): string {
  const frameAncestors = allowedOrigins.length > 0 ? allowedOrigins.join(" ") : "'none'";
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self'",
  ].join("; ");
}

const tags = ["web-app embed"];

/**
 * `GET /embed/{id}` (a web app's chat page, framed by the host) and `GET /embed.js` (the script a host
 * page loads to frame it), from the embed package's build. Without a build the gateway serves
 * neither and says so once.
 */
export async function registerEmbedPage(app: FastifyInstance, { root, stores }: { root: string | undefined; stores: Pick<GatewayStores, "webApps"> }): Promise<void> {
  const page = root && join(root, "page", "index.html");
  const script = root && join(root, "host", "embed.js");
  if (!page || !script || !existsSync(page) || !existsSync(script)) {
    app.log.info(`/embed is not served: ${EMBED_PACKAGE} is not installed or not built (pnpm build in the repository builds it)`);
    return;
  }
  const [html, hostScript] = [readFileSync(page, "utf8"), readFileSync(script, "utf8")];
  await app.register(fastifyStatic, {
    root: join(root, "page", "assets"),
    prefix: `${EMBED_ASSETS_PATH}/`,
    decorateReply: false,
    setHeaders: (reply) => reply.header("cache-control", "public, max-age=31536000, immutable"),
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    "/embed/:id",
    {
      schema: {
        tags,
        summary: "The web app's chat page, for the host page to frame",
        description:
          "`Content-Security-Policy: frame-ancestors` lists the web app's allowed origins: a page on another origin cannot frame it. A draft's page opens only with an operator's preview token in its fragment (`#preview=<token>`), framed or on its own.",
        params: z.object({ id: idSchema }),
        response: { 200: { description: "The page", content: { "text/html": { schema: z.string() } } }, ...errorResponses(["INVALID_REQUEST", "NOT_FOUND", "FORBIDDEN", "INTERNAL_ERROR", "DATABASE_UNAVAILABLE"]) },
      },
    },
    async (request, reply) => {
      const found = await stores.webApps.getWebAppWithKeys(request.params.id);
      if (!found) throw new HttpError("NOT_FOUND", `Web app ${request.params.id} not found`);
      if (found.webApp.status === "disabled") throw new HttpError("FORBIDDEN", `Web app ${request.params.id} is disabled`);
      reply.removeHeader("x-frame-options");
      // The page names its assets; a new build names new ones.
      return reply.header("content-security-policy", pagePolicy(found.webApp.allowedOrigins)).header("cache-control", "no-cache").type("text/html; charset=utf-8").send(html);
    },
  );

  app.get(
    "/embed.js",
    {
      schema: {
        tags,
        summary: "The host script: AxiomEmbed.mount(element, { gateway, webAppId, token, previewToken, welcome, quicks })",
        response: { 200: { description: "A classic script defining AxiomEmbed", content: { "application/javascript": { schema: z.string() } } } },
      },
    },
    // Loaded by pages on other origins: Helmet's same-origin resource policy would refuse them.
    async (_request, reply) =>
      reply.header("cross-origin-resource-policy", "cross-origin").header("cache-control", "public, max-age=300").type("application/javascript; charset=utf-8").send(hostScript),
  );
}
