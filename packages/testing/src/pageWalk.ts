import type { Page, PageRequest } from "@axiom-lattice/protocols";

/**
 * Every item of a paged list, walked from its first page with `limit` items a page; `between` runs
 * after each page but the last (to change the list under the walk). Fails on a list that never ends.
 */
export async function walkPages<T>(read: (page: PageRequest) => Promise<Page<T>>, limit: number, between?: (page: Page<T>) => Promise<void>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= 10_000; pages += 1) {
    const page: Page<T> = await read({ limit, cursor });
    items.push(...page.items);
    if (page.nextCursor === null) return { items, pages };
    cursor = page.nextCursor;
    await between?.(page);
  }
  throw new Error("the list never ended");
}

/** Cursors no page of any list returned: not base64 JSON, or a key of another shape. */
export const FORGED_CURSORS: readonly string[] = ["garbage", Buffer.from(JSON.stringify(["x", "y", "z"])).toString("base64url"), Buffer.from("{}").toString("base64url")];
