import type { Page, PageRequest } from "@axiom-lattice/protocols";

const MAX_PAGES = 1_000;

/**
 * Every item of a list, read page by page (`limit` items each) from `from` (a page's `nextCursor`;
 * the list's start when `null`), and how many pages that took. Fails on a list that does not end:
 * a cursor that does not advance.
 */
export async function walkPages<T>(list: (page: PageRequest) => Promise<Page<T>>, limit: number, from: string | null = null): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor = from;
  for (let pages = 1; pages <= MAX_PAGES; pages += 1) {
    const page = await list({ limit, cursor });
    items.push(...page.items);
    if (page.nextCursor === null) return { items, pages };
    cursor = page.nextCursor;
  }
  throw new Error(`the list did not end within ${MAX_PAGES} pages of ${limit}`);
}
