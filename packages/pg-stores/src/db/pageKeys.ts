import { CREATION_PAGE_SHAPE, type PageKey, type PageKeyShape, pageOf, readPageRequest } from "@axiom-lattice/core";
import type { Page, PageRequest } from "@axiom-lattice/protocols";

/**
 * The select-list item of a creation-order key: `created_at` as epoch microseconds, exactly (a JS
 * Date would drop the microseconds, and a key from it repeat or skip rows).
 */
export const createdMicrosColumn = (table: string): string => `(extract(epoch FROM ${table}.created_at) * 1000000)::bigint AS created_us`;

/**
 * The page condition of a creation-order list, after `($n, $n+1)`: epoch microseconds (bigint) and id
 * (text), both `NULL` on the first page. Written as one row comparison that an index on
 * `(…, created_at, id COLLATE "C")` starts its scan at. The interval product is exact: epoch
 * microseconds stay far below 2^53.
 */
export const afterCreation = (table: string, id: string, n: number): string =>
  `(${table}.created_at, ${table}.${id} COLLATE "C") > (COALESCE('epoch'::timestamptz + $${n}::bigint * interval '1 microsecond', '-infinity'), COALESCE($${n + 1}::text, '') COLLATE "C")`;

/** Reads one page of a list keyed by `shape`: `read` gets the decoded key (`null`: from the start) and how many rows to fetch. */
export async function readPage<R, T>(
  page: PageRequest,
  shape: PageKeyShape,
  read: (after: PageKey | null, fetch: number) => Promise<R[]>,
  keyOf: (row: R) => PageKey,
  toItem: (row: R) => T,
): Promise<Page<T>> {
  const { limit, after } = readPageRequest(page, shape);
  const { items, nextCursor } = pageOf(await read(after, limit + 1), limit, keyOf);
  return { items: items.map(toItem), nextCursor };
}

/** A page of a creation-order list: `read` gets `[created_us, id]` parameters (both `null` from the start) and the rows to fetch. */
export function readCreationPage<R extends { created_us: string }, T>(
  page: PageRequest,
  read: (after: [string | null, string | null], fetch: number) => Promise<R[]>,
  idOf: (row: R) => string,
  toItem: (row: R) => T,
): Promise<Page<T>> {
  return readPage(
    page,
    CREATION_PAGE_SHAPE,
    (after, fetch) => read(after === null ? [null, null] : [String(after[0]), String(after[1])], fetch),
    (row) => [Number(row.created_us), idOf(row)],
    toItem,
  );
}
