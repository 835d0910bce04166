import type { FastifyInstance } from "fastify";

const ROUTE_CATALOG = "routeCatalog";

export interface ServedRoute {
  method: string;
  url: string;
  /** Left out of the API reference (the reference's own pages). */
  hidden: boolean;
}

/** Records every route registered on `app` from now on (HEAD aside): what the API reference must cover. */
export function installRouteCatalog(app: FastifyInstance): void {
  const routes: ServedRoute[] = [];
  app.decorate(ROUTE_CATALOG, routes);
  app.addHook("onRoute", ({ method, url, schema }) => {
    const hidden = (schema as { hide?: boolean } | undefined)?.hide === true;
    for (const each of [method].flat()) if (each !== "HEAD") routes.push({ method: each, url, hidden });
  });
}

/** Every route `app` serves (HEAD aside), as registered. */
export const servedRoutesOf = (app: FastifyInstance): readonly ServedRoute[] => app.getDecorator<ServedRoute[]>(ROUTE_CATALOG);
