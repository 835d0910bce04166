import type { z } from "zod";
import { HttpError } from "./errors";

/** Parses `value` with `schema`; a mismatch is a 400 `INVALID_REQUEST` naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = "request body"): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.length ? issue.path.join(".") : what;
  throw new HttpError("INVALID_REQUEST", `Invalid ${what}: ${field}: ${issue.message}`);
}
