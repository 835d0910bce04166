import type { ErrorCode, Page, PageRequest } from "@axiom-lattice/protocols";
import { requireInteger } from "./storeArguments";

/**
 * Where an item sits in its list's order: the values it is sorted by, ending with something unique
 * (its id), so that no two items share a key. Strings compare by UTF-16 code unit (PostgreSQL:
 * `COLLATE "C"`), numbers by value; a timestamp is a number (epoch microseconds on PostgreSQL, whose
 * timestamps are finer than a `Date`), so the key of the last item of a page names it exactly.
 */
export type PageKey = readonly (string | number)[];

/**
 * What each element of a list's {@link PageKey} is: a cursor of another shape is refused. An
 * `integer` is a number that is a safe integer (a sequence, epoch microseconds: PostgreSQL's bigint).
 */
export type PageKeyShape = readonly ("string" | "number" | "integer")[];

/** Most items any store returns in one page. */
export const MAX_PAGE_LIMIT = 1_000;

/** A page cursor no list of this kind returned: forged, truncated, or another list's. Nothing was read. */
export class PageCursorError extends TypeError {
  readonly code = "INVALID_CURSOR" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "PageCursorError";
  }
}

/** The cursor that starts the next page after the item whose key is `key`. */
export function encodePageCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

/** The key `cursor` names, if it is one of a list whose keys have `shape`. */
export function decodePageCursor(cursor: string, shape: PageKeyShape): PageKey {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new PageCursorError("cursor is not one a page of this list returned");
  }
  const fits =
    Array.isArray(key) &&
    key.length === shape.length &&
    key.every((value, i) => {
      if (shape[i] === "string") return typeof value === "string";
      return typeof value === "number" && (shape[i] === "integer" ? Number.isSafeInteger(value) : Number.isFinite(value));
    });
  if (!fits) throw new PageCursorError("cursor is not one a page of this list returned");
  return key as PageKey;
}

/** A page request's limit, checked, and the key the page starts after (`null`: from the start). */
export function readPageRequest(page: PageRequest, shape: PageKeyShape): { limit: number; after: PageKey | null } {
  const limit = requireInteger(page.limit, "limit", 1, MAX_PAGE_LIMIT);
  const after = page.cursor === undefined || page.cursor === null ? null : decodePageCursor(page.cursor, shape);
  return { limit, after };
}

/** Orders keys as the stores do (see {@link PageKey}). */
export function comparePageKeys(a: PageKey, b: PageKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const [x, y] = [a[i], b[i]];
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return a.length - b.length;
}

/**
 * The page of `rows`, read as `limit + 1` rows of the list from where the page starts: the extra row,
 * when there is one, says that another page follows, and the last item kept is where it starts.
 */
export function pageOf<T>(rows: readonly T[], limit: number, keyOf: (item: T) => PageKey): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodePageCursor(keyOf(last)) : null };
}

/** For in-memory stores: the page of `sorted` (the whole list, in its order) that `page` asks for. */
export function pageOfSorted<T>(sorted: readonly T[], page: PageRequest, shape: PageKeyShape, keyOf: (item: T) => PageKey): Page<T> {
  const { limit, after } = readPageRequest(page, shape);
  const start = after === null ? 0 : sorted.findIndex((item) => comparePageKeys(keyOf(item), after) > 0);
  return pageOf(start === -1 ? [] : sorted.slice(start, start + limit + 1), limit, keyOf);
}

/** Every item of a list, read a page at a time: for a caller that needs all of a short list (e.g. to filter it). */
export async function readAllPages<T>(read: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await read({ limit: MAX_PAGE_LIMIT, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}
