import type { Page } from "@axiom-lattice/protocols";
import { describe, expect, it } from "vitest";
import { PageCursorError, pageOfSorted, readPageRequest } from "../../src/index";

interface Row {
  at: number;
  id: string;
}

const keyOf = (row: Row) => [row.at, row.id] as const;
const shape = ["number", "string"] as const;
// Sorted by (at, id), ids by code unit: "B" < "a".
const rows: Row[] = [
  { at: 1, id: "B" },
  { at: 1, id: "a" },
  { at: 2, id: "a" },
  { at: 3, id: "c" },
  { at: 3, id: "d" },
];

describe("page cursors", () => {
  it("walks a list page by page, every item once, and ends with no cursor", () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page<Row> = pageOfSorted(rows, { limit: 2, cursor }, shape, keyOf);
      seen.push(...page.items.map((row) => `${row.at}${row.id}`));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(["1B", "1a", "2a", "3c", "3d"]);
    expect(pages).toBe(3);
  });

  it("answers no cursor when the page ends the list exactly", () => {
    const first = pageOfSorted(rows, { limit: 5 }, shape, keyOf);
    expect(first.items).toHaveLength(5);
    expect(first.nextCursor).toBeNull();
  });

  it("resumes after the cursor's item even when that item is gone", () => {
    const first = pageOfSorted(rows, { limit: 1 }, shape, keyOf);
    const rest = pageOfSorted(rows.slice(1), { limit: 10, cursor: first.nextCursor }, shape, keyOf);
    expect(rest.items.map((row) => row.id)).toEqual(["a", "a", "c", "d"]);
  });

  it.each([
    ["not base64 JSON", "%%%"],
    ["another list's shape", Buffer.from(JSON.stringify(["x"])).toString("base64url")],
    ["wrong element types", Buffer.from(JSON.stringify(["1", 2])).toString("base64url")],
    ["an object", Buffer.from(JSON.stringify({ at: 1 })).toString("base64url")],
  ])("refuses a cursor that is %s with INVALID_CURSOR", (_, cursor) => {
    expect(() => readPageRequest({ limit: 10, cursor }, shape)).toThrow(PageCursorError);
    try {
      readPageRequest({ limit: 10, cursor }, shape);
    } catch (error) {
      expect((error as PageCursorError).code).toBe("INVALID_CURSOR");
    }
  });

  it.each([0, -1, 1.5, 1_001])("refuses a limit of %s", (limit) => {
    expect(() => readPageRequest({ limit }, shape)).toThrow(/limit must be an integer from 1 to 1000/);
  });
});

describe("integer page keys", () => {
  const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString("base64url");

  it("takes a safe integer and refuses a fraction or an unsafe one, as a bigint column would", () => {
    expect(readPageRequest({ limit: 1, cursor: cursorOf([42]) }, ["integer"]).after).toEqual([42]);
    expect(() => readPageRequest({ limit: 1, cursor: cursorOf([1.5]) }, ["integer"])).toThrow(PageCursorError);
    expect(() => readPageRequest({ limit: 1, cursor: cursorOf([2 ** 60]) }, ["integer"])).toThrow(PageCursorError);
    expect(readPageRequest({ limit: 1, cursor: cursorOf([1.5]) }, ["number"]).after).toEqual([1.5]);
  });
});
