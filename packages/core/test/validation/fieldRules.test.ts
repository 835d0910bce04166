import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StoreArgumentError, optionalString, requireInteger, requireNonNegativeNumber, requirePositiveNumber, requireText } from "../../src/stores/storeArguments";
import { fieldRules as rules } from "../../src/validation/fieldRules";
import { parseStoreArgument } from "../../src/validation/parseStoreArgument";

const samples: unknown[] = [
  undefined,
  null,
  "",
  "a",
  "a\u0000b",
  " ",
  0,
  -1,
  1,
  2.5,
  1_000,
  1_001,
  2_147_483_647,
  2_147_483_648,
  -2_147_483_649,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  {},
  [],
];

/** What a check answers for `value`: the accepted value, or the end of its message after `what`. */
function outcome(check: () => unknown): { accepted: unknown } | { refused: string } {
  try {
    return { accepted: check() };
  } catch (error) {
    expect(error).toBeInstanceOf(StoreArgumentError);
    return { refused: (error as Error).message.replace(/^X /, "").replace(/, got .*$/, "") };
  }
}

// The queue and every store's ids keep hand-written checks (zod is slower there): each must hold the
// same rule, with the same message, as the shared rule the edge uses.
describe("the hand-written store checks hold the shared rules", () => {
  const pairs: Array<[string, (value: unknown) => unknown, z.ZodType]> = [
    ["requireText / text", (value) => requireText(value, "X"), rules.text],
    ["optionalString / string", (value) => optionalString(value, "X"), rules.string.optional()],
    ["requireInteger / integer", (value) => requireInteger(value, "X"), rules.integer()],
    ["requireInteger(1, 1000) / limit", (value) => requireInteger(value, "X", 1, 1_000), rules.limit],
    ["requireInteger(0) / offset", (value) => requireInteger(value, "X", 0), rules.offset],
    ["requireNonNegativeNumber / nonNegativeNumber", (value) => requireNonNegativeNumber(value, "X"), rules.nonNegativeNumber],
    ["requirePositiveNumber / positiveNumber", (value) => requirePositiveNumber(value, "X"), rules.positiveNumber],
  ];

  it.each(pairs)("%s", (_name, handWritten, rule) => {
    for (const value of samples) {
      expect(outcome(() => handWritten(value)), `for ${String(value)}`).toEqual(outcome(() => parseStoreArgument(rule, value, "X")));
    }
  });
});

describe("parseStoreArgument", () => {
  it("names the first bad field by its path under `what`, with a StoreArgumentError", () => {
    expect(() => parseStoreArgument(rules.jsonObject, [], "Assistant metadata")).toThrow(new StoreArgumentError("Assistant metadata must be an object"));
    const error = outcome(() => parseStoreArgument(rules.jsonObject.array(), [{ a: "\u0000" }], "Xs"));
    expect(error).toEqual({ refused: "Xs 0 must not contain NUL characters" });
  });

  it("names the path alone when `what` is empty", () => {
    expect(() => parseStoreArgument(z.object({ key: rules.text }), { key: "" }, "")).toThrow(/^key must be a non-empty string/);
  });
});

describe("the shared rules", () => {
  it("refuse free-form JSON that no store can keep, or out of bounds", () => {
    for (const value of [{ a: "\u0000" }, { a: 1n }, [], null, "text"]) expect(rules.jsonObject.safeParse(value).success, JSON.stringify(String(value))).toBe(false);
    expect(rules.jsonObject.safeParse({ a: [1, { b: "c" }] }).success).toBe(true);
  });

  it("take http and https URLs only", () => {
    expect(["https://api.example.com/v1", "http://localhost:8080"].map((url) => rules.httpUrl.safeParse(url).success)).toEqual([true, true]);
    expect(["ftp://example.com", "javascript:alert(1)", "file:///etc/passwd", "not a url", ""].map((url) => rules.httpUrl.safeParse(url).success)).toEqual([false, false, false, false, false]);
  });

  it("keep times a Date holds: whole epoch milliseconds within ±8.64e15", () => {
    expect([0, -1, 8.64e15].map((ms) => rules.epochMs.safeParse(ms).success)).toEqual([true, true, true]);
    expect([1.5, 8.64e15 + 1, Number.NaN].map((ms) => rules.epochMs.safeParse(ms).success)).toEqual([false, false, false]);
  });
});
