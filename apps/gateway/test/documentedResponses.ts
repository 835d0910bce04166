import { Readable } from "node:stream";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterEach, expect } from "vitest";

/** `/api/threads/:id` as OpenAPI spells it: `/api/threads/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/**
 * Checks every answer `app` sends against the OpenAPI document it serves: its status is documented
 * for the route, and a JSON body matches the documented schema. Mismatches are collected, not thrown,
 * so the answer the test sees is the real one; the test asserts there are none.
 */
export function checkDocumentedResponses(app: FastifyInstance, mismatches: string[] = []): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  let document: OpenAPIV3_1.Document | undefined;

  app.addHook("onSend", async (request, reply, payload) => {
    const route = request.routeOptions.url;
    // Routes that declare no schema (metrics, test-only routes) document no answers to check.
    if (!route || request.method === "HEAD" || !request.routeOptions.schema) return payload;
    document ??= app.swagger() as OpenAPIV3_1.Document;
    const operation = document.paths?.[openApiPath(route)]?.[request.method.toLowerCase() as OpenAPIV3_1.HttpMethods];
    if (!operation) return payload; // the reference's own pages
    const where = `${request.method} ${route} → ${reply.statusCode}`;
    const documented = operation.responses?.[String(reply.statusCode)] as OpenAPIV3_1.ResponseObject | undefined;
    if (!documented) {
      mismatches.push(`${where}: status not documented (${String(payload).slice(0, 200)})`);
      return payload;
    }
    const contentType = String(reply.getHeader("content-type") ?? "").split(";")[0];
    if (!documented.content) {
      if (payload !== undefined && payload !== null && String(payload) !== "") mismatches.push(`${where}: a body where none is documented`);
      return payload;
    }
    const schema = documented.content[contentType]?.schema;
    if (!schema) {
      mismatches.push(`${where}: content type ${contentType} not documented`);
      return payload;
    }
    // A stream is not the route's answer here: the operator's app (http.app) answered in front of it.
    if (contentType !== "application/json" || payload instanceof Readable) return payload;
    const key = `${where} ${contentType}`;
    let validate = validators.get(key);
    // The document's named schemas ride along, so `#/components/schemas/…` references resolve.
    if (!validate) validators.set(key, (validate = ajv.compile({ ...schema, components: document.components })));
    const body = JSON.parse(String(payload));
    if (!validate(body)) mismatches.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`);
    return payload;
  });
  return mismatches;
}

/**
 * For a describe block (or file): returns what starts checking a gateway's answers (call it before
 * the gateway's first request); each test then fails on an answer that differs from the document.
 */
export function useDocumentedResponses(): (app: FastifyInstance) => void {
  const mismatches: string[] = [];
  afterEach(() => {
    expect(mismatches.splice(0), "answers that differ from the OpenAPI document").toEqual([]);
  });
  return (app) => void checkDocumentedResponses(app, mismatches);
}
