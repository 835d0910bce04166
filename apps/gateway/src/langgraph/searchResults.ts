import type { FastifyReply } from "fastify";
import { z } from "zod";

/** A page of a search, as LangGraph SDKs ask for one (they send 10 by default). */
export const paginationQuery = {
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
};

/**
 * The page of `items` (all the matches) a search asked for, with the headers LangGraph clients read:
 * `X-Pagination-Total`, and `X-Pagination-Next` (the next page's offset) when there is one.
 */
export function paginate<T>(reply: FastifyReply, items: readonly T[], { limit, offset }: { limit: number; offset: number }): T[] {
  reply.header("x-pagination-total", String(items.length));
  if (offset + limit < items.length) reply.header("x-pagination-next", String(offset + limit));
  return items.slice(offset, offset + limit);
}

/** `views` ordered by `key` (dates by time, nulls first), `asc` or `desc`. */
export function sortedBy<V, K extends keyof V>(views: V[], key: K, order: "asc" | "desc"): V[] {
  const direction = order === "asc" ? 1 : -1;
  const valueOf = (view: V) => {
    const value = view[key];
    return value instanceof Date ? value.getTime() : (value ?? "");
  };
  return views.sort((a, b) => {
    const [x, y] = [valueOf(a), valueOf(b)];
    return direction * (x < y ? -1 : x > y ? 1 : 0);
  });
}

/** Only the `select`ed fields of each view (every field when no selection is given), as LangGraph searches answer. */
export function selected<V extends object, K extends keyof V>(views: V[], select: readonly K[] | undefined): Array<Partial<V>> {
  return select ? views.map((view) => Object.fromEntries(select.map((field) => [field, view[field]])) as unknown as Partial<V>) : views;
}
