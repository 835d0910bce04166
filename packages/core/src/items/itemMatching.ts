import { type ItemCondition, foldAsciiCase } from "./itemArguments";

// How the in-memory store judges what the PostgreSQL store's statements judge, so both answer alike.

const textOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** Namespaces label by label in code point order (PostgreSQL's text[] under COLLATE "C"), a prefix first. */
export function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = textOrder(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Whether `namespace` begins (or ends) with `labels`; with `wildcard`, a label `*` matches any label. */
export function hasLabelsAt(namespace: readonly string[], labels: readonly string[], at: "start" | "end", wildcard: boolean): boolean {
  if (labels.length > namespace.length) return false;
  const offset = at === "start" ? 0 : namespace.length - labels.length;
  return labels.every((label, i) => (wildcard && label === "*") || namespace[offset + i] === label);
}

/** Equality of JSON values as jsonb `=` judges it: objects by their keys, whatever their order. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const [left, right] = [a as Record<string, unknown>, b as Record<string, unknown>];
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

function holds(field: unknown, [, op, operand]: ItemCondition): boolean {
  switch (op) {
    case "eq":
      return field !== undefined && jsonEqual(field, operand);
    case "ne":
      return field === undefined || !jsonEqual(field, operand);
    default: {
      if (typeof field !== "number") return false;
      const bound = operand as number;
      return op === "gt" ? field > bound : op === "gte" ? field >= bound : op === "lt" ? field < bound : field <= bound;
    }
  }
}

/** Whether an item's value meets every condition of a filter. */
export const meetsConditions = (value: Record<string, unknown>, conditions: readonly ItemCondition[]): boolean =>
  conditions.every((condition) => holds(Object.hasOwn(value, condition[0]) ? value[condition[0]] : undefined, condition));

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(stringsOf);
}

/** Whether every term (ASCII-folded) occurs in some string of the value, ASCII case aside. */
export function containsTerms(value: Record<string, unknown>, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const texts = stringsOf(value).map(foldAsciiCase);
  return terms.every((term) => texts.some((text) => text.includes(term)));
}
