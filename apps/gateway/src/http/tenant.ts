import type { FastifyRequest } from "fastify";
import { HttpError } from "./errors";

export const TENANT_HEADER = "x-tenant-id";
export const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The `x-tenant-id` header when present; a malformed one is a 400. */
export function tenantHeader(request: FastifyRequest): string | undefined {
  const value = request.headers[TENANT_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !TENANT_PATTERN.test(value)) {
    throw new HttpError("INVALID_TENANT", `The ${TENANT_HEADER} header must match ${TENANT_PATTERN.source}`);
  }
  return value;
}
