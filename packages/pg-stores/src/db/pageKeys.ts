import { CREATION_PAGE_SHAPE, type PageKey, type PageKeyShape, pageOf, readPageRequest } from "@axiom-lattice/core";
import type { Page, PageRequest } from "@axiom-lattice/protocols";

// A page key's timestamp is its epoch microseconds: PostgreSQL keeps microseconds, a JS Date only
// milliseconds, so a key read through a Date would name a row inexactly and repeat or skip rows.

/** The epoch microseconds of the timestamptz `column`, exactly (a bigint: node-postgres reads it as a string). */
export const epochMicros = (column: string): string => `(extract(epoch FROM ${column}) * 1000000)::bigint`;

/**
 * The timestamptz of the epoch microseconds `param` (a page key's number), exactly: compared with the
 * column, it keeps the column's index. The interval product is exact: epoch microseconds stay far below 2^53.
 */
export const fromEpochMicros = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;

/** The select-list item of a creation-order key: `created_at` as epoch microseconds, named `created_us`. */
export const createdMicrosColumn = (table: string): string => `${epochMicros(`${table}.created_at`)} AS created_us`;

/**
 * The page condition of a creation-order list, after `($n, $n+1)`: epoch microseconds (bigint) and id
 * (text), both `NULL` on the first page. Written as one row comparison that an index on
 * `(…, created_at, id COLLATE "C")` starts its scan at.
 */
export const afterCreation = (table: string, id: string, n: number): string =>
  `(${table}.created_at, ${table}.${id} COLLATE "C") > (COALESCE(${fromEpochMicros(`$${n}`)}, '-infinity'), COALESCE($${n + 1}::text, '') COLLATE "C")`;

/**
 * Reads one page of a list keyed by `shape`: `read` gets the decoded key (`null`: from the start) and
 * how many rows to fetch, one more than the page, to tell whether another follows.
 */
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
