/**
 * Whether JSON value `container` contains `contained`, as PostgreSQL's jsonb `@>` judges it: an object
 * contains an object whose every key it has with a containing value; an array contains an array
 * whose every element one of its own elements contains (and, at the top level, a lone scalar it
 * holds); anything else only an equal value. In-memory stores filter with it so they answer as the
 * database does.
 */
export function jsonContains(container: unknown, contained: unknown, topLevel = true): boolean {
  if (Array.isArray(container)) {
    if (Array.isArray(contained)) return contained.every((wanted) => container.some((held) => jsonContains(held, wanted, false)));
    return topLevel && !isObject(contained) && container.some((held) => jsonContains(held, contained, false));
  }
  if (isObject(container)) {
    if (!isObject(contained)) return false;
    return Object.entries(contained).every(([key, wanted]) => Object.hasOwn(container, key) && jsonContains(container[key], wanted, false));
  }
  return !Array.isArray(contained) && !isObject(contained) && container === contained;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
