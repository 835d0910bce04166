import type { FastifyInstance } from "fastify";
import { z } from "zod";

const NO_QUERY = z.strictObject({});

/**
 * Every `/api` route refuses a query parameter it does not know (`400 INVALID_REQUEST`), as it refuses
 * an unknown body field: a client sending an option the route does not have (an old `?after=`, an
 * `?offset=` of another API) learns so, rather than getting an answer that silently ignored it. A
 * route that declares no query gets an empty one; a declared one must be a strict object (checked here,
 * so no route slips through).
 */
export function installStrictApiQueries(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith("/api/")) return;
    const declared = route.schema?.querystring;
    if (declared === undefined) {
      route.schema = { ...route.schema, querystring: NO_QUERY };
      return;
    }
    if (!(declared instanceof z.ZodObject) || declared.def.catchall?._zod.def.type !== "never") {
      throw new Error(`${[route.method].flat().join(",")} ${route.url}: its query schema must be a z.strictObject`);
    }
  });
}
