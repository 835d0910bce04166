import type { ErrorCode } from "@axiom-lattice/protocols";
import { compileErrors, validate } from "@readme/openapi-parser";
import type { FastifyInstance } from "fastify";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { isProtectedRoute } from "../src/auth/authentication";
import { ERROR_STATUS } from "../src/http/errors";
import { langgraphStatus } from "../src/langgraph/errors";
import { DOCS_PATH, OPENAPI_PATH } from "../src/openapi/apiReference";
import { servedRoutesOf } from "../src/openapi/routeCatalog";
import { PLAYGROUND_PATH } from "../src/playground/playgroundPage";
import { EMBED_ASSETS_PATH } from "../src/webApps/embedPage";
import { openApiPath } from "./documentedResponses";

// With authentication on, as production runs: the reference must still be public.
let app: FastifyInstance;
let document: OpenAPIV3_1.Document;

beforeAll(async () => {
  app = await buildGateway(loadConfig({ LOG_LEVEL: "silent", AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: "s".repeat(32) }));
  const response = await app.inject({ method: "GET", url: OPENAPI_PATH });
  expect(response.statusCode).toBe(200);
  document = response.json();
});
afterAll(() => app.close());

const operationOf = (method: string, url: string) =>
  document.paths?.[openApiPath(url)]?.[method.toLowerCase() as OpenAPIV3_1.HttpMethods] as OpenAPIV3_1.OperationObject | undefined;

/** The A2A dialect's routes: its agent cards and JSON-RPC endpoint. */
const isA2aRoute = (url: string) => url.startsWith("/a2a/") || url === "/.well-known/agent-card.json";
const documentedRoutes = () => servedRoutesOf(app).filter((route) => !route.hidden);

/** Routes that act on a resource and take nothing but its id. */
const BODYLESS_ACTIONS = ["/pause", "/resume", "/dispatch", "/cancel", "/connect", "/disconnect", "/secret", "/test", "/discover"];

describe("the API reference", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("lists its component schemas by name, whatever order their modules load in", () => {
    const names = Object.keys(document.components?.schemas ?? {});
    expect(names.length).toBeGreaterThan(5);
    expect(names).toEqual([...names].sort());
  });

  it("documents every route the gateway serves, with its method; only the reference's pages, the playground page, the embed page's assets and CORS preflights are left out", () => {
    const routes = servedRoutesOf(app);
    expect(routes.length).toBeGreaterThan(20);
    const missing = documentedRoutes().filter(({ method, url }) => !operationOf(method, url));
    expect(missing).toEqual([]);
    const isPage = (url: string) => url === OPENAPI_PATH || [DOCS_PATH, PLAYGROUND_PATH, EMBED_ASSETS_PATH].some((page) => url === page || url.startsWith(`${page}/`));
    const hidden = routes.filter((route) => route.hidden && !isPage(route.url));
    expect(hidden).toEqual([{ method: "OPTIONS", url: "*", hidden: true }]);
    // Nothing documented that the gateway does not serve.
    const served = new Set(documentedRoutes().map(({ method, url }) => `${method.toLowerCase()} ${openApiPath(url)}`));
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((key) => ["get", "post", "put", "patch", "delete"].includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(documented.filter((operation) => !served.has(operation))).toEqual([]);
  });

  it("gives every /api route its input, a success answer, the error answers with their codes, and its scope", () => {
    const apiRoutes = documentedRoutes().filter(({ url }) => url.startsWith("/api/"));
    for (const { method, url } of apiRoutes) {
      const operation = operationOf(method, url)!;
      const where = `${method} ${url}`;
      const responses = operation.responses ?? {};
      expect(Object.keys(responses).some((status) => status.startsWith("2")), where).toBe(true);
      if (url.includes(":")) expect(operation.parameters?.some((parameter) => "in" in parameter && parameter.in === "path"), where).toBe(true);
      if (method === "POST" || method === "PATCH") {
        if (!BODYLESS_ACTIONS.some((action) => url.endsWith(action))) expect(operation.requestBody, where).toBeDefined();
      }
      expect(operation.security, where).toEqual([{ bearerAuth: [] }]);
      expect(operation.description, where).toMatch(/Needs the `(read|write|admin)` scope/);
      for (const status of ["401", "403", "500"]) expect(responses[status], `${where} ${status}`).toBeDefined();
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        const schema = (response as OpenAPIV3_1.ResponseObject).content?.["application/json"]?.schema as OpenAPIV3_1.SchemaObject;
        const codes = (schema.properties?.code as OpenAPIV3_1.SchemaObject).enum as ErrorCode[];
        expect(codes.length, `${where} ${status}`).toBeGreaterThan(0);
        // Each code documented under the status the gateway answers it with.
        for (const code of codes) expect(ERROR_STATUS[code], `${where}: ${code}`).toBe(Number(status));
      }
    }
  });

  it("gives every LangGraph API route a success answer, {detail, code} errors at the platform's statuses, and its scope", () => {
    const langgraphRoutes = documentedRoutes().filter(({ url }) => isProtectedRoute(url) && !url.startsWith("/api/") && url !== "/mcp" && !isA2aRoute(url));
    expect(langgraphRoutes.length).toBe(50);
    for (const { method, url } of langgraphRoutes) {
      const operation = operationOf(method, url)!;
      const where = `${method} ${url}`;
      expect(operation.tags, where).toEqual(["langgraph"]);
      expect(operation.security, where).toEqual([{ bearerAuth: [] }]);
      expect(operation.description, where).toMatch(/Needs the `(read|write|admin)` scope/);
      const responses = operation.responses ?? {};
      expect(Object.keys(responses).some((status) => status.startsWith("2")), where).toBe(true);
      for (const status of ["401", "403", "500"]) expect(responses[status], `${where} ${status}`).toBeDefined();
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        const schema = (response as OpenAPIV3_1.ResponseObject).content?.["application/json"]?.schema as OpenAPIV3_1.SchemaObject;
        expect(Object.keys(schema.properties ?? {}), `${where} ${status}`).toEqual(["detail", "code"]);
        for (const code of (schema.properties?.code as OpenAPIV3_1.SchemaObject).enum as ErrorCode[]) expect(langgraphStatus(code), `${where}: ${code}`).toBe(Number(status));
      }
    }
  });

  it("gives every A2A route its tag, the bearer scheme, its scope, and the gateway's error answers", () => {
    const a2aRoutes = documentedRoutes().filter(({ url }) => isA2aRoute(url));
    expect(a2aRoutes.map(({ method, url }) => `${method} ${url}`).sort()).toEqual(["GET /.well-known/agent-card.json", "GET /a2a/:assistant_id/.well-known/agent-card.json", "POST /a2a/:assistant_id"]);
    for (const { method, url } of a2aRoutes) {
      const operation = operationOf(method, url)!;
      const where = `${method} ${url}`;
      expect(operation.tags, where).toEqual(["a2a"]);
      expect(operation.security, where).toEqual([{ bearerAuth: [] }]);
      expect(operation.description, where).toMatch(/Needs the `read` scope/);
      for (const status of ["200", "401", "403", "404", "500"]) expect(operation.responses?.[status], `${where} ${status}`).toBeDefined();
    }
  });

  it("documents request bodies from the route schemas: fields, bounds, required ones, no unknown ones", () => {
    const body = (operationOf("POST", "/api/runs")!.requestBody as OpenAPIV3_1.RequestBodyObject).content["application/json"].schema as OpenAPIV3_1.SchemaObject;
    expect(body.required).toEqual(["assistant_id", "thread_id"]);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties?.mode).toMatchObject({ enum: ["stream", "queue", "wait"], default: "stream" });
    const lastEventId = operationOf("POST", "/api/runs/resume_stream")!.parameters?.find((parameter) => "name" in parameter && parameter.name === "last-event-id");
    expect(lastEventId).toMatchObject({ in: "header", required: false });
    const query = operationOf("GET", "/api/threads")!.parameters?.map((parameter) => ("name" in parameter ? parameter.name : undefined));
    expect(query).toEqual(expect.arrayContaining(["assistant_id", "limit", "cursor"]));
    expect(query).not.toContain("offset");
  });

  it("names every operation once, gives every protected one the bearer scheme and the x-tenant-id header, and names the main answers' schemas", () => {
    const operations = documentedRoutes().map(({ method, url }) => ({ url, operation: operationOf(method, url)! }));
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationOf("GET", "/api/threads/:id/runs")?.operationId).toBe("getApiThreadsByIdRuns");
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const { url, operation } of operations.filter(({ url }) => isProtectedRoute(url))) {
      expect(operation.security, url).toEqual([{ bearerAuth: [] }]);
      expect(operation.parameters, url).toContainEqual(expect.objectContaining({ in: "header", name: "x-tenant-id", required: false }));
    }
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(expect.arrayContaining(["Assistant", "Thread", "RunRecord", "Message", "Task", "Schedule"]));
    const threads = (operationOf("GET", "/api/threads")!.responses?.["200"] as OpenAPIV3_1.ResponseObject).content?.["application/json"].schema as OpenAPIV3_1.SchemaObject;
    expect(threads.properties?.threads).toEqual({ type: "array", items: { $ref: "#/components/schemas/Thread" } });
  });

  it("serves the document and the rendered reference without authentication", async () => {
    const docs = await app.inject({ method: "GET", url: DOCS_PATH });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toMatch(/^text\/html/);
    const initializer = await app.inject({ method: "GET", url: `${DOCS_PATH}/static/swagger-initializer.js` });
    expect(initializer.statusCode).toBe(200);
    // The /api routes themselves still refuse an anonymous request.
    expect((await app.inject({ method: "GET", url: "/api/threads" })).statusCode).toBe(401);
  });
});
