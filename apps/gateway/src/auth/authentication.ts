import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DEFAULT_TENANT } from "../defaults";
import { HttpError } from "../http/errors";
import { TENANT_HEADER, tenantHeader } from "../http/tenant";
import { type Principal, grants } from "./principal";
import { routeScope } from "./routeScopes";
import type { TokenVerifier } from "./tokenVerifier";

const PRINCIPAL = "principal";
const API_ROUTES = "apiRoutes";

export interface ApiRoute {
  method: string;
  url: string;
}

/** Every `/api` route `app` serves (HEAD aside), as registered. */
export const apiRoutesOf = (app: FastifyInstance): readonly ApiRoute[] => app.getDecorator<ApiRoute[]>(API_ROUTES);
/** Longer headers are refused before any parsing: no real token comes close. */
const MAX_AUTHORIZATION_LENGTH = 8 * 1024;
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

/** Who made an `/api` request, as established by {@link installAuthentication}. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = request.getDecorator<Principal | null>(PRINCIPAL);
  if (!principal) throw new Error(`No principal for ${request.method} ${request.url}: it is not an /api route`);
  return principal;
}

/** The tenant every query of an `/api` request is confined to. */
export const tenantOf = (request: FastifyRequest): string => principalOf(request).tenantId;

/**
 * A 401 with the challenge RFC 6750 asks for, so clients know to (re)authenticate; a token that was
 * presented but refused is an `invalid_token`.
 */
function challenge(reply: FastifyReply, error: HttpError, tokenPresented: boolean): never {
  reply.header("www-authenticate", `Bearer realm="axiom-lattice"${tokenPresented ? `, error="invalid_token"` : ""}`);
  throw error;
}

async function authenticated(request: FastifyRequest, reply: FastifyReply, verify: TokenVerifier): Promise<Principal> {
  const header = request.headers.authorization;
  if (header === undefined) challenge(reply, new HttpError("UNAUTHENTICATED", "An Authorization: Bearer <token> header is required"), false);
  const match = header.length <= MAX_AUTHORIZATION_LENGTH ? BEARER.exec(header) : null;
  if (!match) challenge(reply, new HttpError("UNAUTHENTICATED", "Invalid Authorization header: expected Bearer <token>"), true);
  let principal: Principal;
  try {
    principal = await verify(match[1]);
  } catch (error) {
    if (error instanceof HttpError && (error.code === "UNAUTHENTICATED" || error.code === "TOKEN_EXPIRED")) challenge(reply, error, true);
    throw error;
  }
  const claimed = tenantHeader(request);
  if (claimed !== undefined && claimed !== principal.tenantId) {
    throw new HttpError("TENANT_MISMATCH", `The ${TENANT_HEADER} header names another tenant than the bearer token`);
  }
  return principal;
}

/**
 * Establishes every `/api` request's principal before its route runs: from the verified bearer token
 * when `verify` is given (authentication on), else from the `x-tenant-id` header with every scope
 * (development mode). Then checks the route's scope; a route nobody classified is refused.
 */
export function installAuthentication(app: FastifyInstance, verify: TokenVerifier | undefined): void {
  const routes: ApiRoute[] = [];
  app.decorate(API_ROUTES, routes);
  // Refuse to start with a route nobody classified, rather than serve it to the wrong people.
  app.addHook("onRoute", ({ method, url }) => {
    if (!url.startsWith("/api/")) return;
    for (const each of [method].flat()) {
      if (each === "HEAD") continue;
      if (!routeScope(each, url)) throw new Error(`${each} ${url} has no scope in ROUTE_SCOPES`);
      routes.push({ method: each, url });
    }
  });
  app.decorateRequest(PRINCIPAL, null);
  app.addHook("onRequest", async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route?.startsWith("/api/")) return;
    const principal: Principal = verify
      ? await authenticated(request, reply, verify)
      : { tenantId: tenantHeader(request) ?? DEFAULT_TENANT, scope: "admin" };
    const needed = routeScope(request.method, route);
    if (!needed || !grants(principal.scope, needed)) {
      throw new HttpError("FORBIDDEN", `${request.method} ${route} needs the ${needed ?? "(unclassified)"} scope`);
    }
    request.setDecorator(PRINCIPAL, principal);
  });
}
