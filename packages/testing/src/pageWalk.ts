import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { expect } from "vitest";

const MAX_PAGES = 10_000;

export interface PageWalkOptions {
  /** Where the walk starts: a page's `nextCursor` (the list's start when absent). */
  from?: string | null;
  /** Runs after each page that has a next one (0 after the first), to change the list mid-walk. */
  between?: (pageIndex: number) => Promise<void>;
}

/**
 * Every item of a paged list, read `limit` items at a time, and how many pages that took; checks that
 * no page holds more than `limit`, and fails on a list that never ends (a cursor that does not advance).
 */
export async function walkPages<T>(read: (page: PageRequest) => Promise<Page<T>>, limit: number, options: PageWalkOptions = {}): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor = options.from ?? null;
  for (let pages = 1; pages <= MAX_PAGES; pages += 1) {
    const page: Page<T> = await read({ limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    if (page.nextCursor === null) return { items, pages };
    cursor = page.nextCursor;
    await options.between?.(pages - 1);
  }
  throw new Error(`the list did not end within ${MAX_PAGES} pages of ${limit}`);
}

const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString("base64url");

/** Cursors no page of a list returned, for `it.each`: each must be refused with `INVALID_CURSOR`. */
export const forgedCursors = (
  /** A key of the list's shape but for a fraction where the list keys by an integer (a sequence, a time). */
  fractional: unknown[],
): [string, string][] => [
  ["not base64 JSON", "%%%not-a-cursor"],
  ["JSON of no key", cursorOf({ after: 1 })],
  ["a key of another length", cursorOf(["x", 1, "y"])],
  ["a key with a fraction", cursorOf(fractional)],
];
