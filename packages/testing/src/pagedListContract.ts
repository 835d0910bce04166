import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

/** A store list that pages, as {@link pagedListContract} drives it. */
export interface PagedListHarness<T> {
  /**
   * Adds the tenant's `index`-th item, which the list orders after every item added before it. In a
   * list in creation order, name items so that their ids alone would order them otherwise
   * (descending): a key that lost its timestamp's precision then repeats or skips items.
   */
  add(tenantId: string, index: number): Promise<T>;
  /** Absent for a list whose items are never removed. */
  remove?(tenantId: string, item: T): Promise<void>;
  list(tenantId: string, page: PageRequest): Promise<Page<T>>;
  idOf(item: T): string;
}

/**
 * The paging contract every store list keeps (see `PageRequest`): a walk returns every item once in
 * the list's order, items added or removed between pages neither repeat nor skip the others, and a
 * cursor the list did not return is refused with `INVALID_CURSOR`, nothing read.
 */
export function pagedListContract<T>(name: string, makeHarness: () => Promise<PagedListHarness<T>>): void {
  describe(`paged list contract: ${name}`, () => {
    let list: PagedListHarness<T>;
    beforeAll(async () => {
      list = await makeHarness();
    });

    /** The ids of every page from `cursor` on, and how many pages they took. */
    const walk = async (tenantId: string, limit: number, cursor: string | null = null) => {
      const ids: string[] = [];
      let pages = 0;
      do {
        const page = await list.list(tenantId, { limit, cursor });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        ids.push(...page.items.map((item) => list.idOf(item)));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      return { ids, pages };
    };

    it("walks the list page by page: every item once, in the list's order, the last page without a cursor", async () => {
      const tenant = fresh("tenant");
      expect(await list.list(tenant, { limit: 5 })).toEqual({ items: [], nextCursor: null });
      const added: string[] = [];
      for (let index = 0; index < 7; index += 1) added.push(list.idOf(await list.add(tenant, index)));
      expect(await walk(tenant, 3)).toEqual({ ids: added, pages: 3 });
      expect(await walk(tenant, 7)).toEqual({ ids: added, pages: 1 });
      expect((await walk(tenant, 1_000)).ids).toEqual(added);
    });

    it("neither repeats nor skips items when others are added or removed between pages", async () => {
      const tenant = fresh("tenant");
      const items: T[] = [];
      for (let index = 0; index < 6; index += 1) items.push(await list.add(tenant, index));
      const ids = items.map((item) => list.idOf(item));
      const first = await list.list(tenant, { limit: 2 });
      expect(first.items.map((item) => list.idOf(item))).toEqual(ids.slice(0, 2));
      // The item the cursor names is gone, and so is one the next page would have shown; one is added.
      const { remove } = list;
      if (remove) for (const item of [items[1], items[3]]) await remove(tenant, item as T);
      const added = list.idOf(await list.add(tenant, 6));
      const rest = await walk(tenant, 2, first.nextCursor);
      expect(rest.ids).toEqual([ids[2], ...(remove ? [] : [ids[3]]), ids[4], ids[5], added]);
    });

    it("refuses a cursor it did not return, and a limit out of 1..1000", async () => {
      const tenant = fresh("tenant");
      await list.add(tenant, 0);
      for (const cursor of ["garbage", Buffer.from(JSON.stringify([1, 2, 3])).toString("base64url")]) {
        await expect(list.list(tenant, { limit: 10, cursor })).rejects.toMatchObject({ code: "INVALID_CURSOR" });
      }
      for (const limit of [0, 1_001, 2.5]) await expect(list.list(tenant, { limit })).rejects.toThrow(/limit must be an integer from 1 to 1000/);
    });
  });
}
