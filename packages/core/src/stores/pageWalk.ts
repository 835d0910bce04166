import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { MAX_PAGE_LIMIT } from "./pagination";

/**
 * Every item of a list, read a page at a time: for a caller that needs the whole list (a membership
 * check, a fan-out), not for one that hands a list to a client, which pages it.
 */
export async function readAllPages<T>(readPage: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await readPage({ limit: MAX_PAGE_LIMIT, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}
