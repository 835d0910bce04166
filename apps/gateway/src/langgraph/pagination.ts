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
