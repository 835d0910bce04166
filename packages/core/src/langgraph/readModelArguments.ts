import { MAX_QUEUE_BATCH } from "../queue/queueArguments";
import { validateMetadata } from "../threads/threadArguments";
import { StoreArgumentError, optionalText, requireInteger, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every LangGraphReadModel, so bad input is refused alike.

export interface ValidThreadFilter {
  assistantId?: string;
  metadata?: Record<string, unknown>;
  ids?: string[];
  sortBy: "createdAt" | "updatedAt" | "id";
  sortOrder: "asc" | "desc";
  limit: number;
  offset: number;
}

const SORT_KEYS = ["createdAt", "updatedAt", "id"] as const;
const SORT_ORDERS = ["asc", "desc"] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw new StoreArgumentError(`${what} must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return value as T;
}

export function validateThreadFilter(filter: unknown): ValidThreadFilter {
  const checked = filter === undefined ? {} : requireObject(filter, "Thread filter");
  const ids = checked.ids;
  if (ids !== undefined && (!Array.isArray(ids) || ids.length > 1000)) throw new StoreArgumentError("Thread filter ids must be an array of at most 1000 ids");
  return {
    assistantId: optionalText(checked.assistantId, "Thread filter assistantId"),
    metadata: checked.metadata === undefined ? undefined : (JSON.parse(validateMetadata(checked.metadata)) as Record<string, unknown>),
    ids: ids?.map((id) => requireText(id, "Thread filter id")),
    sortBy: oneOf(checked.sortBy, SORT_KEYS, "Thread filter sortBy", "createdAt"),
    sortOrder: oneOf(checked.sortOrder, SORT_ORDERS, "Thread filter sortOrder", "desc"),
    limit: checked.limit === undefined ? 100 : requireInteger(checked.limit, "Thread filter limit", 1, 1000),
    offset: checked.offset === undefined ? 0 : requireInteger(checked.offset, "Thread filter offset", 0),
  };
}

export function validateRunsLimit(options: { limit?: number } | undefined): number {
  const limit = options === undefined ? undefined : requireObject(options, "List options").limit;
  return limit === undefined ? 100 : requireInteger(limit, "Runs limit", 1, MAX_QUEUE_BATCH);
}
