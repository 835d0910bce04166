import { describe, expect, it } from "vitest";
import { readAllPages } from "../../src/index";
import { CreationClock, pageByCreation } from "../../src/stores/creationOrder";

interface Made {
  id: string;
  createdAt: Date;
}

describe("creation order", () => {
  it("pages items made within one millisecond in the order they were made, not by id, resuming after a removed one", () => {
    const clock = new CreationClock();
    const made: Made[] = ["c", "a", "b", "d"].map((id) => ({ id, createdAt: clock.now() }));
    const first = pageByCreation(made, { limit: 2 }, (item) => item.id);
    expect(first.items.map((item) => item.id)).toEqual(["c", "a"]);
    // The item the cursor names is gone: the next page starts after it all the same.
    const rest = pageByCreation([made[3]!, made[0]!, made[2]!], { limit: 2, cursor: first.nextCursor }, (item) => item.id);
    expect(rest.items.map((item) => item.id)).toEqual(["b", "d"]);
    expect(rest.nextCursor).toBeNull();
  });

  it("answers copies, not the store's own items", () => {
    const made: Made[] = [{ id: "x", createdAt: new CreationClock().now() }];
    const [copy] = pageByCreation(made, { limit: 1 }, (item) => item.id).items;
    copy!.id = "changed";
    expect(made[0]!.id).toBe("x");
  });
});

describe("readAllPages", () => {
  it("reads every page of a list, in order, until one has no cursor", async () => {
    const clock = new CreationClock();
    const made: Made[] = Array.from({ length: 2_500 }, (_, n) => ({ id: `item-${n}`, createdAt: clock.now() }));
    const requested: number[] = [];
    const all = await readAllPages(async (page) => {
      requested.push(page.limit);
      return pageByCreation(made, page, (item) => item.id);
    });
    expect(all.map((item) => item.id)).toEqual(made.map((item) => item.id));
    expect(requested).toEqual([1_000, 1_000, 1_000]);
  });
});
