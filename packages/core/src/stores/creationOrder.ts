import type { Page, PageRequest } from "@axiom-lattice/protocols";
import { type PageKey, type PageKeyShape, comparePageKeys, pageOfSorted } from "./keysetPages";

/**
 * Lists in creation order (projects, bots, rooms) page by when each item was made, then by its id:
 * every store sorts and keys them so (PostgreSQL by its timestamp's epoch microseconds).
 */
export const CREATION_PAGE_SHAPE: PageKeyShape = ["integer", "string"];

/** For in-memory stores: the page of `items` (in any order) `page` asks for, copies in creation order. */
export function pageByCreation<T extends { createdAt: Date }>(items: readonly T[], page: PageRequest, idOf: (item: T) => string): Page<T> {
  const keyOf = (item: T): PageKey => [item.createdAt.getTime(), idOf(item)];
  const sorted = [...items].sort((a, b) => comparePageKeys(keyOf(a), keyOf(b)));
  const { items: pageItems, nextCursor } = pageOfSorted(sorted, page, CREATION_PAGE_SHAPE, keyOf);
  return { items: pageItems.map((item) => structuredClone(item)), nextCursor };
}

/**
 * Creation times for an in-memory store, each later than the one before, so that items made within
 * one millisecond still list in the order they were made, not by id.
 */
export class CreationClock {
  private last = 0;

  now(): Date {
    this.last = Math.max(Date.now(), this.last + 1);
    return new Date(this.last);
  }
}
