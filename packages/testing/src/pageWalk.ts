import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { expect } from "vitest";

/**
 * Reads a whole list `limit` items at a time, checking that no page holds more, and runs `between`
 * after each page that has a next one (to change the list mid-walk).
 */
export async function walkPages<T>(read: (page: PageRequest) => Promise<Page<T>>, limit: number, between?: (pageIndex: number) => Promise<void>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pageIndex = 0; ; pageIndex += 1) {
    const page: Page<T> = await read({ limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === null) return items;
    await between?.(pageIndex);
  }
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
