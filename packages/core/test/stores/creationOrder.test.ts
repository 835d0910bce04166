import { describe, expect, it } from "vitest";
import { CreationOrder, readAllPages } from "../../src/index";

describe("CreationOrder", () => {
  it("pages records in the order they were added, resuming after a removed one", () => {
    const order = new CreationOrder<{ id: string }>();
    const records = ["c", "a", "b", "d"].map((id) => order.add({ id }));
    const first = order.page(records, { limit: 2 });
    expect(first.items.map((record) => record.id)).toEqual(["c", "a"]);
    // The record the cursor names is gone: the next page starts after it all the same.
    const rest = order.page([records[0]!, records[2]!, records[3]!], { limit: 2, cursor: first.nextCursor });
    expect(rest).toEqual({ items: [{ id: "b" }, { id: "d" }], nextCursor: null });
  });

  it("refuses to page a record it never numbered", () => {
    const order = new CreationOrder<{ id: string }>();
    expect(() => order.page([{ id: "stray" }, { id: "other" }], { limit: 1 })).toThrow(/never added/);
  });
});

describe("readAllPages", () => {
  it("reads every page of a list, in order, until one has no cursor", async () => {
    const order = new CreationOrder<{ n: number }>();
    const records = Array.from({ length: 2_500 }, (_, n) => order.add({ n }));
    const requested: Array<number | undefined> = [];
    const all = await readAllPages(async (page) => {
      requested.push(page.limit);
      return order.page(records, page);
    });
    expect(all.map((record) => record.n)).toEqual(records.map((record) => record.n));
    expect(requested).toEqual([1_000, 1_000, 1_000]);
  });
});
