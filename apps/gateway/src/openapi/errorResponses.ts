import type { ErrorCode } from "@axiom-lattice/protocols";
import { z } from "zod";
import { ERROR_STATUS } from "../http/errors";

/**
 * What every `/api` route may answer: a query parameter it does not know, a refused token or scope, a
 * bad tenant header, a fault of the server, a database it cannot reach just now, a replica starting or
 * shutting down.
 */
export const API_CODES: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "INVALID_TENANT",
  "UNAUTHENTICATED",
  "TOKEN_EXPIRED",
  "TENANT_MISMATCH",
  "FORBIDDEN",
  "INTERNAL_ERROR",
  "DATABASE_UNAVAILABLE",
  "NOT_READY",
];

/** What a route with declared input may answer about it (path, query, headers). */
export const INPUT_CODES: readonly ErrorCode[] = ["INVALID_REQUEST"];

/** What a route taking a JSON body may answer about it: bad fields or JSON, too large, not JSON, refused by a store. */
export const BODY_CODES: readonly ErrorCode[] = ["INVALID_REQUEST", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "INVALID_STORE_ARGUMENT"];

/** The body of every error answer: `code` is one of those listed for the status, `error` says why in English. */
export const errorBody = (codes: readonly [ErrorCode, ...ErrorCode[]], extra: z.ZodRawShape = {}) =>
  z.object({
    success: z.literal(false),
    code: z.enum(codes).describe("Stable error code"),
    error: z.string().describe("What went wrong, in English"),
    ...extra,
  })
  .describe(`Refused: ${codes.join(", ")}`);

/** The error answers for `codes`, one per HTTP status, each listing its codes. */
export function errorResponses(codes: readonly ErrorCode[], extra: z.ZodRawShape = {}): Record<number, ReturnType<typeof errorBody>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, [first, ...rest]]) => [status, errorBody([first, ...rest], extra)]));
}

/** The error answers of an `/api` route: those of every such route, and `codes`. */
export const apiErrors = (...codes: readonly ErrorCode[]) => errorResponses([...API_CODES, ...codes]);
