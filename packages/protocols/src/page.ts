/**
 * One page of a list: at most `limit` items, after the position `cursor` names (from the list's start
 * without one). Every list of every store pages this way, so a caller pages every list alike.
 */
export interface PageRequest {
  limit: number;
  /** A page's `nextCursor`, as the store returned it: opaque to callers. */
  cursor?: string | null;
}

/** Items in the list's order, and where the next page starts: `null` on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
