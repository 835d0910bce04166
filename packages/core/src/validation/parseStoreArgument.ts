import type { z } from "zod";
import { StoreArgumentError } from "../stores/storeArguments";

/**
 * `value` as `schema` parses it; otherwise a {@link StoreArgumentError} naming the first bad field as
 * `what` and its path ("Assistant model.apiKey must be …"; an empty `what` names the path alone), so
 * nothing is written. The one way a
 * store's arguments are checked against the shared {@link fieldRules}.
 */
export function parseStoreArgument<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = [what, issue.path.map(String).join(".")].filter(Boolean).join(" ");
  throw new StoreArgumentError(field ? `${field} ${issue.message}` : issue.message);
}

/** `value` without the keys whose value is `undefined`, so a store never writes (or clears) a field it was not given. */
export const definedFields = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
