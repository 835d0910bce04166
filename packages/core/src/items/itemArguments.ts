import type { ItemSearch, NamespaceListing, PutItemOptions } from "@axiom-lattice/protocols";
import { ITEM_ADDRESS_MAX_BYTES, ITEM_NAMESPACE_MAX_LABELS } from "../defaults";
import { z } from "zod";
import { StoreArgumentError } from "../stores/storeArguments";
import { fieldRules as rules } from "../validation/fieldRules";
import { parseStoreArgument } from "../validation/parseStoreArgument";

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

/** A namespace label: non-empty, no NUL, no period (LangGraph joins a namespace with periods in a query string). */
export const itemLabel = rules.text
  .max(ITEM_ADDRESS_MAX_BYTES, `must be at most ${ITEM_ADDRESS_MAX_BYTES} characters`)
  .refine((label) => !label.includes("."), "must not contain periods");

/** A namespace (or a prefix or suffix of one): its labels, at most {@link ITEM_NAMESPACE_MAX_LABELS}. */
export const itemLabels = z
  .array(itemLabel, { error: "must be an array of labels" })
  .max(ITEM_NAMESPACE_MAX_LABELS, `must have at most ${ITEM_NAMESPACE_MAX_LABELS} labels`);

/** An item's own namespace: 1 label at least. */
export const itemNamespace = itemLabels.min(1, "must have at least one label");

const utf8Bytes = (texts: readonly string[]) => texts.reduce((sum, text) => sum + Buffer.byteLength(text, "utf8"), 0);

const address = z
  .object({ tenantId: rules.text, namespace: itemNamespace, key: rules.text })
  .refine((valid) => utf8Bytes([...valid.namespace, valid.key]) <= ITEM_ADDRESS_MAX_BYTES, `namespace labels and key must not exceed ${ITEM_ADDRESS_MAX_BYTES} bytes together`);

/** Where an item lives: its tenant, namespace (1 label at least) and key. */
export const validateItemAddress = (tenantId: unknown, namespace: unknown, key: unknown): ValidItemAddress =>
  parseStoreArgument(address, { tenantId, namespace, key }, "");

const itemWrite = z.object({ value: rules.jsonObject, ttlMinutes: rules.ttlMinutes.nullable().optional() });

/** A put's value as JSON text (an object within the bounds of free-form JSON) and its time-to-live. */
export function validateItemWrite(value: unknown, options: PutItemOptions = {}): { json: string; ttlMinutes: number | null } {
  const valid = parseStoreArgument(itemWrite, { value, ttlMinutes: options.ttlMinutes }, "");
  return { json: JSON.stringify(valid.value), ttlMinutes: valid.ttlMinutes ?? null };
}

function conditionsOf(filter: unknown): ItemCondition[] {
  if (filter === undefined) return [];
  const fields = parseStoreArgument(rules.jsonObject, filter, "filter");
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

const query = z
  .string({ error: "must be a string without NUL characters" })
  .refine((text) => !text.includes("\u0000"), "must be a string without NUL characters")
  .nullish()
  .transform((text) => (text ? foldAsciiCase(text).split(/\s+/).filter(Boolean) : []))
  .refine((terms) => terms.length <= MAX_TERMS, `must have at most ${MAX_TERMS} words`);

// The tenant beside the search's own fields, so a message names each as the search does.
const searchSchema = z.object({
  tenantId: rules.text,
  namespacePrefix: itemLabels,
  filter: z.unknown().optional(),
  query,
  limit: rules.limit.default(10),
  offset: rules.offset.default(0),
  refreshTtl: rules.boolean.default(true),
});

export function validateItemSearch(tenantId: unknown, search: ItemSearch): { tenantId: string; search: ValidItemSearch } {
  const { tenantId: tenant, filter, query: terms, ...page } = parseStoreArgument(searchSchema, { ...search, tenantId }, "");
  return { tenantId: tenant, search: { ...page, conditions: conditionsOf(filter), terms } };
}

const listingSchema = z.object({
  tenantId: rules.text,
  prefix: itemLabels.default([]),
  suffix: itemLabels.default([]),
  maxDepth: rules.integer(1, ITEM_NAMESPACE_MAX_LABELS).optional().transform((depth) => depth ?? null),
  limit: rules.limit.default(100),
  offset: rules.offset.default(0),
});

export function validateNamespaceListing(tenantId: unknown, listing: NamespaceListing = {}): { tenantId: string; listing: ValidNamespaceListing } {
  const { tenantId: tenant, ...valid } = parseStoreArgument(listingSchema, { ...listing, tenantId }, "");
  return { tenantId: tenant, listing: valid };
}
