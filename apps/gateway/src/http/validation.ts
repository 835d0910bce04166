import type { FastifySchemaCompiler } from "fastify";
import type { z } from "zod";
import { HttpError } from "./errors";

/** How error messages name each part of a request. */
const PART_NAMES: Record<string, string> = { body: "request body", params: "path", querystring: "query", headers: "headers" };

/** A 400 `INVALID_REQUEST` naming the first bad field of `what`. */
function invalidInput(error: z.ZodError, what: string): HttpError {
  const issue = error.issues[0];
  const field = issue.path.length ? `${issue.path.join(".")}: ` : "";
  return new HttpError("INVALID_REQUEST", `Invalid ${what}: ${field}${issue.message}`);
}

/** Parses `value` with `schema`; a mismatch is a 400 `INVALID_REQUEST` naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = "request body"): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error, what);
}

/**
 * Validates each declared part of a request (body, path, query, headers) with its zod schema, as
 * {@link parseInput} does: a missing body counts as `{}`, and a mismatch is a 400 naming the field.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const what = PART_NAMES[httpPart ?? "body"] ?? "request";
  return (data) => {
    const parsed = schema.safeParse(httpPart === "body" ? (data ?? {}) : data);
    return parsed.success ? { value: parsed.data } : { error: invalidInput(parsed.error, what) };
  };
};
