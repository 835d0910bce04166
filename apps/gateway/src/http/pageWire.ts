import { MAX_PAGE_LIMIT } from "@axiom-lattice/core";
import type { Page } from "@axiom-lattice/protocols";
import { z } from "zod";

/** Items a list answers when the request names no `limit`. */
export const DEFAULT_PAGE_LIMIT = 100;

/**
 * The query parameters of every list: `limit` and the `cursor` a previous page answered as
 * `next_cursor`. Spread into a route's query schema beside its filters.
 */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT).describe("Most items in the page"),
  cursor: z.string().min(1).max(1_024).optional().describe("Where the page starts: a previous page's `next_cursor`; the first page without one"),
};

/** The answer of every list: the items under `name`, and where the next page starts. */
export function pageView<K extends string, V extends z.ZodType>(name: K, item: V) {
  return z.object({
    [name]: z.array(item),
    next_cursor: z.string().nullable().describe("The `cursor` of the next page; `null` on the last page"),
    has_more: z.boolean().describe("Whether another page follows (`next_cursor` is not `null`)"),
  } as { [P in K]: z.ZodArray<V> } & { next_cursor: z.ZodNullable<z.ZodString>; has_more: z.ZodBoolean });
}

/** The body a list answers: a store's page, each item shown by `view`. */
export function pageBody<K extends string, T, V>(name: K, page: Page<T>, view: (item: T) => V): { [P in K]: V[] } & { next_cursor: string | null; has_more: boolean } {
  return { [name]: page.items.map(view), next_cursor: page.nextCursor, has_more: page.nextCursor !== null } as { [P in K]: V[] } & {
    next_cursor: string | null;
    has_more: boolean;
  };
}
