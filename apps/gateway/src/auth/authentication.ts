import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DEFAULT_TENANT } from "../defaults";
import { HttpError } from "../http/errors";
import { TENANT_HEADER, tenantHeader } from "../http/tenant";
import { API_KEY_PREFIX } from "./apiKeySecrets";
import { type Principal, grants } from "./principal";
import { confinesToAssistants, routeScope } from "./routeScopes";
import type { TokenVerifier } from "./tokenVerifier";

const PRINCIPAL = "principal";
const API_ROUTES = "apiRoutes";

export interface ApiRoute {
  method: string;
  url: string;
}

/** Every protected route `app` serves (HEAD aside), as registered: `/api` and the LangGraph API's. */
export const apiRoutesOf = (app: FastifyInstance): readonly ApiRoute[] => app.getDecorator<ApiRoute[]>(API_ROUTES);

/**
 * Routes that act on a tenant's data: `/api`, the LangGraph-compatible API at the root
 * (`/assistants`, `/threads`, `/runs`, `/store`), the MCP server (`/mcp`) and A2A (`/a2a`, the agent
 * card named in a query). Each needs a principal and the scope ROUTE_SCOPES gives it.
 */
const PROTECTED_ROUTE = /^\/(api|assistants|threads|runs|store|mcp|a2a|\.well-known\/agent-card\.json)(\/|$)/;
export const isProtectedRoute = (url: string): boolean => PROTECTED_ROUTE.test(url);

/** The header LangGraph SDKs send their `apiKey` in: the gateway reads a bearer token (an API key or a JWT) there too. */
export const API_KEY_HEADER = "x-api-key";
/** Longer headers are refused before any parsing: no real token comes close. */
export const MAX_AUTHORIZATION_LENGTH = 8 * 1024;
export const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** Who made a protected request, as established by {@link installAuthentication}. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = request.getDecorator<Principal | null>(PRINCIPAL);
  if (!principal) throw new Error(`No principal for ${request.method} ${request.url}: it is not a protected route`);
  return principal;
}

/** The tenant every query of a protected request is confined to. */
export const tenantOf = (request: FastifyRequest): string => principalOf(request).tenantId;

/**
 * A 401 with the challenge RFC 6750 asks for, so clients know to (re)authenticate; a token that was
 * presented but refused is an `invalid_token`.
 */
function challenge(reply: FastifyReply, error: HttpError, tokenPresented: boolean): never {
  reply.header("www-authenticate", `Bearer realm="axiom-lattice"${tokenPresented ? `, error="invalid_token"` : ""}`);
  throw error;
}

/**
 * The bearer token a request presents: in `Authorization: Bearer <token>`, or, as LangGraph SDKs send
 * their `apiKey`, in `x-api-key` (when there is no Authorization header).
 */
function presentedToken(request: FastifyRequest, reply: FastifyReply): string {
  const header = request.headers.authorization;
  if (header === undefined) {
    const apiKey = request.headers[API_KEY_HEADER];
    if (apiKey === undefined) challenge(reply, new HttpError("UNAUTHENTICATED", `An Authorization: Bearer <token> (or ${API_KEY_HEADER}: <token>) header is required`), false);
    if (typeof apiKey !== "string" || apiKey.length > MAX_AUTHORIZATION_LENGTH || !TOKEN.test(apiKey)) {
      challenge(reply, new HttpError("UNAUTHENTICATED", `Invalid ${API_KEY_HEADER} header: expected a bearer token`), true);
    }
    return apiKey;
  }
  const match = header.length <= MAX_AUTHORIZATION_LENGTH ? BEARER.exec(header) : null;
  if (!match) challenge(reply, new HttpError("UNAUTHENTICATED", "Invalid Authorization header: expected Bearer <token>"), true);
  return match[1];
}

async function authenticated(request: FastifyRequest, reply: FastifyReply, verify: TokenVerifier): Promise<Principal> {
  const token = presentedToken(request, reply);
  let principal: Principal;
  try {
    principal = await verify(token);
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

/** How a request's credential is checked: `jwt` when authentication is on; API keys always. */
export interface Verifiers {
  jwt?: TokenVerifier;
  apiKeys: TokenVerifier;
}

/** Whether the token a request presents (as {@link presentedToken} picks it) is an API key. */
function presentsApiKey(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  if (header !== undefined) return header.startsWith(`Bearer ${API_KEY_PREFIX}`);
  const apiKey = request.headers[API_KEY_HEADER];
  return typeof apiKey === "string" && apiKey.startsWith(API_KEY_PREFIX);
}

/**
 * The principal of a request. With authentication on, its bearer token is an API key (`lat_…`) or a
 * JWT. Without (development mode), `x-tenant-id` names the tenant, with every scope; but a presented
 * API key is still verified and its principal used: a key never opens more than its row, and a
 * program tried against a development gateway meets the same refusals (scope, assistants, revocation)
 * as in production.
 */
function requestPrincipal(request: FastifyRequest, reply: FastifyReply, { jwt, apiKeys }: Verifiers): Promise<Principal> | Principal {
  if (jwt) return authenticated(request, reply, (token) => (token.startsWith(API_KEY_PREFIX) ? apiKeys(token) : jwt(token)));
  if (presentsApiKey(request)) return authenticated(request, reply, apiKeys);
  return { tenantId: tenantHeader(request) ?? DEFAULT_TENANT, scope: "admin" };
}

/**
 * Establishes every protected request's principal before its route runs (see {@link requestPrincipal}),
 * then checks the route's scope, and that a credential restricted to some assistants reaches only the
 * routes that hold it to them; a route nobody classified is refused.
 */
export function installAuthentication(app: FastifyInstance, verifiers: Verifiers): void {
  const routes: ApiRoute[] = [];
  app.decorate(API_ROUTES, routes);
  // Refuse to start with a route nobody classified, rather than serve it to the wrong people.
  app.addHook("onRoute", ({ method, url }) => {
    if (!isProtectedRoute(url)) return;
    for (const each of [method].flat()) {
      if (each === "HEAD") continue;
      if (!routeScope(each, url)) throw new Error(`${each} ${url} has no scope in ROUTE_SCOPES`);
      routes.push({ method: each, url });
    }
  });
  app.decorateRequest(PRINCIPAL, null);
  app.addHook("onRequest", async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route || !isProtectedRoute(route)) return;
    const principal = await requestPrincipal(request, reply, verifiers);
    const needed = routeScope(request.method, route);
    if (!needed || !grants(principal.scope, needed)) {
      throw new HttpError("FORBIDDEN", `${request.method} ${route} needs the ${needed ?? "(unclassified)"} scope`);
    }
    if (principal.assistantIds !== undefined && !confinesToAssistants(request.method, route)) {
      throw new HttpError("FORBIDDEN", `${request.method} ${route} is not confined to assistants: a credential restricted to some cannot use it`);
    }
    request.setDecorator(PRINCIPAL, principal);
  });
}
