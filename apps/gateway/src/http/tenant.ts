import type { FastifyRequest } from "fastify";
import { HttpError } from "./errors";

export const TENANT_HEADER = "x-tenant-id";
export const DEFAULT_TENANT = "default";
const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The request's tenant: the `x-tenant-id` header, or `default`; a malformed header is a 400. */
export function resolveTenant(request: FastifyRequest): string {
  const value = request.headers[TENANT_HEADER];
  if (value === undefined) return DEFAULT_TENANT;
  if (typeof value !== "string" || !TENANT_PATTERN.test(value)) {
    throw new HttpError("INVALID_TENANT", `The ${TENANT_HEADER} header must match ${TENANT_PATTERN.source}`);
  }
  return value;
}
