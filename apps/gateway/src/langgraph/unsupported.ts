import { z } from "zod";
import { HttpError } from "../http/errors";

/** Fields of LangGraph requests this gateway does not implement, each with what it would have done. */
export type UnsupportedFields = Readonly<Record<string, string>>;

/** The schema of `fields`: accepted by validation, so that {@link refuseUnsupported} answers them by name. */
export const unsupportedShape = (fields: UnsupportedFields) =>
  Object.fromEntries(Object.entries(fields).map(([field, what]) => [field, z.unknown().optional().describe(`Not supported (${what}): refused with NOT_SUPPORTED`)]));

/** A 422 `NOT_SUPPORTED` for the first of `fields` the request gives a value (null counts as none). */
export function refuseUnsupported(body: Record<string, unknown>, fields: UnsupportedFields): void {
  for (const [field, what] of Object.entries(fields)) {
    if (body[field] !== undefined && body[field] !== null) throw new HttpError("NOT_SUPPORTED", `${field} is not supported by this gateway (${what})`);
  }
}
