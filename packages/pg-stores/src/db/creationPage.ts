import { pageOf, readPageRequest } from "@axiom-lattice/core";
import type { Page, PageRequest } from "@axiom-lattice/protocols";

/**
 * A row of a list in creation order, paged by its `created_at` and its id: the list's SQL selects
 * `created_at` as epoch microseconds (`created_us`, a bigint pg reads as a string), since a Date
 * keeps only milliseconds and a key read from one would repeat or skip rows created within one.
 */
export interface CreationOrderedRow {
  created_us: string;
}

/** The parameters after the tenant: the key the page starts after (`NULL`s: from the start), and `limit + 1` rows to read. */
export function creationPageParams(page: PageRequest): { limit: number; params: [number | null, string | null, number] } {
  const { limit, after } = readPageRequest(page, ["number", "string"]);
  return { limit, params: [after === null ? null : (after[0] as number), after === null ? null : (after[1] as string), limit + 1] };
}

/** The page the `limit + 1` rows read make. */
export function creationPage<R extends CreationOrderedRow>(rows: readonly R[], limit: number, idOf: (row: R) => string): Page<R> {
  return pageOf(rows, limit, (row) => [Number(row.created_us), idOf(row)]);
}
