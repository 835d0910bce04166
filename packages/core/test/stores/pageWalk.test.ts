import { describe, expect, it } from "vitest";
import { MAX_PAGE_LIMIT, pageOfSorted, readAllPages } from "../../src/index";

describe("readAllPages", () => {
  it("reads a list longer than the largest page, every item once, in order", async () => {
    const ids = Array.from({ length: MAX_PAGE_LIMIT * 2 + 3 }, (_, index) => index);
    let reads = 0;
    const all = await readAllPages(async (page) => {
      reads += 1;
      return pageOfSorted(ids, page, ["integer"], (id) => [id]);
    });
    expect(all).toEqual(ids);
    expect(reads).toBe(3);
  });

  it("reads an empty list in one page", async () => {
    expect(await readAllPages(async () => ({ items: [], nextCursor: null }))).toEqual([]);
  });
});
