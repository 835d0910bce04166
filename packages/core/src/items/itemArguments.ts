import type { ItemSearch, NamespaceListing, PutItemOptions } from "@axiom-lattice/protocols";
import { ITEM_ADDRESS_MAX_BYTES, ITEM_NAMESPACE_MAX_LABELS } from "../defaults";
import { StoreArgumentError, requireBoundedJson, requireInteger, requireObject, requireTenantId, requireText, requireTtlMinutes } from "../stores/storeArguments";

// Checks shared by every ItemStore, so bad input is refused alike and before any write. What they
// answer is what both stores act on: the in-memory store evaluates it, the PostgreSQL store passes
// it as parameters of fixed statements.

/** One condition of a search's filter on a top-level field of the value. */
export type ItemCondition = [field: string, op: "eq" | "ne" | "gt" | "gte" | "lt" | "lte", value: unknown];

export interface ValidItemAddress {
  tenantId: string;
  namespace: string[];
  key: string;
}

export interface ValidItemSearch {
  namespacePrefix: string[];
  conditions: ItemCondition[];
  /** The query's words, ASCII letters lower-cased. */
  terms: string[];
  limit: number;
  offset: number;
  refreshTtl: boolean;
}

export interface ValidNamespaceListing {
  prefix: string[];
  suffix: string[];
  maxDepth: number | null;
  limit: number;
  offset: number;
}

const OPERATORS = { $eq: "eq", $ne: "ne", $gt: "gt", $gte: "gte", $lt: "lt", $lte: "lte" } as const;
const MAX_TERMS = 32;

/** Labels: non-empty, no NUL, no period (LangGraph joins a namespace with periods in a query string). */
function requireLabels(labels: unknown, what: string, { allowEmpty }: { allowEmpty: boolean }): string[] {
  if (!Array.isArray(labels)) throw new StoreArgumentError(`${what} must be an array of labels`);
  if (!allowEmpty && labels.length === 0) throw new StoreArgumentError(`${what} must have at least one label`);
  if (labels.length > ITEM_NAMESPACE_MAX_LABELS) throw new StoreArgumentError(`${what} must have at most ${ITEM_NAMESPACE_MAX_LABELS} labels`);
  return labels.map((label) => {
    const text = requireText(label, `a label of ${what}`);
    if (text.includes(".")) throw new StoreArgumentError(`${what} labels must not contain periods, got "${text}"`);
    return text;
  });
}

const utf8Bytes = (texts: readonly string[]) => texts.reduce((sum, text) => sum + Buffer.byteLength(text, "utf8"), 0);

/** Where an item lives: its tenant, namespace (1 label at least) and key. */
export function validateItemAddress(tenantId: unknown, namespace: unknown, key: unknown): ValidItemAddress {
  const address = { tenantId: requireTenantId(tenantId), namespace: requireLabels(namespace, "namespace", { allowEmpty: false }), key: requireText(key, "key") };
  if (utf8Bytes([...address.namespace, address.key]) > ITEM_ADDRESS_MAX_BYTES) {
    throw new StoreArgumentError(`namespace labels and key must not exceed ${ITEM_ADDRESS_MAX_BYTES} bytes together`);
  }
  return address;
}

/** A put's value as JSON text (an object within the bounds of free-form JSON) and its time-to-live. */
export function validateItemWrite(value: unknown, options: PutItemOptions = {}): { json: string; ttlMinutes: number | null } {
  requireObject(value, "value");
  const json = requireBoundedJson(value, "value");
  const ttl = options.ttlMinutes ?? null;
  return { json, ttlMinutes: ttl === null ? null : requireTtlMinutes(ttl) };
}

function conditionsOf(filter: unknown): ItemCondition[] {
  if (filter === undefined) return [];
  const fields = requireObject(filter, "filter");
  requireBoundedJson(fields, "filter");
  return Object.entries(fields).flatMap(([field, wanted]): ItemCondition[] => {
    const operators = typeof wanted === "object" && wanted !== null && !Array.isArray(wanted) ? Object.keys(wanted) : [];
    if (!operators.some((name) => name.startsWith("$"))) return [[field, "eq", wanted]];
    return operators.map((name) => {
      const op = OPERATORS[name as keyof typeof OPERATORS];
      if (!op) throw new StoreArgumentError(`filter.${field} has an unknown operator ${name}; operators are ${Object.keys(OPERATORS).join(", ")}`);
      const operand = (wanted as Record<string, unknown>)[name];
      if (op !== "eq" && op !== "ne" && (typeof operand !== "number" || !Number.isFinite(operand))) {
        throw new StoreArgumentError(`filter.${field}.${name} must be a number`);
      }
      return [field, op, operand];
    });
  });
}

/** Lower-cases ASCII letters only: the same in every store, whatever the database's locale. */
export const foldAsciiCase = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

function termsOf(query: unknown): string[] {
  if (query === undefined || query === null) return [];
  if (typeof query !== "string" || query.includes("\u0000")) throw new StoreArgumentError("query must be a string without NUL characters");
  const terms = foldAsciiCase(query).split(/\s+/).filter(Boolean);
  if (terms.length > MAX_TERMS) throw new StoreArgumentError(`query must have at most ${MAX_TERMS} words`);
  return terms;
}

const page = (limit: unknown, offset: unknown, defaultLimit: number) => ({
  limit: requireInteger(limit ?? defaultLimit, "limit", 1, 1_000),
  offset: requireInteger(offset ?? 0, "offset", 0),
});

export function validateItemSearch(tenantId: unknown, search: ItemSearch): { tenantId: string; search: ValidItemSearch } {
  return {
    tenantId: requireTenantId(tenantId),
    search: {
      namespacePrefix: requireLabels(search.namespacePrefix, "namespace prefix", { allowEmpty: true }),
      conditions: conditionsOf(search.filter),
      terms: termsOf(search.query),
      ...page(search.limit, search.offset, 10),
      refreshTtl: search.refreshTtl ?? true,
    },
  };
}

export function validateNamespaceListing(tenantId: unknown, listing: NamespaceListing = {}): { tenantId: string; listing: ValidNamespaceListing } {
  return {
    tenantId: requireTenantId(tenantId),
    listing: {
      prefix: requireLabels(listing.prefix ?? [], "prefix", { allowEmpty: true }),
      suffix: requireLabels(listing.suffix ?? [], "suffix", { allowEmpty: true }),
      maxDepth: listing.maxDepth === undefined ? null : requireInteger(listing.maxDepth, "maxDepth", 1, ITEM_NAMESPACE_MAX_LABELS),
      ...page(listing.limit, listing.offset, 100),
    },
  };
}
