import { z } from "zod";
import { TTL_MAX_MINUTES } from "../defaults";
import { boundedJson } from "../stores/jsonBounds";

// The rule each kind of value must meet, stated once: the stores parse their arguments with these
// (through `parseStoreArgument`), and the gateway's route schemas build their fields from them, so the
// edge refuses a bad value under its wire name before a store would refuse it under its own.
// Each message is the end of a sentence naming the field ("must be …"), as both places print it.

// PostgreSQL text and jsonb cannot hold U+0000; refusing it everywhere keeps every store alike.
const withoutNul = (text: string) => !text.includes("\u0000");

const TEXT = "must be a non-empty string without NUL characters";
const STRING = "must be a string without NUL characters";

/** The PostgreSQL `integer` range: the widest any integer column holds. */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** The range of a JavaScript Date; PostgreSQL timestamptz covers it. */
const MAX_EPOCH_MS = 8.64e15;

/** An integer within [min, max] (PostgreSQL `integer` range unless narrowed). */
const integer = (min = INT32_MIN, max = INT32_MAX) => {
  const message = `must be an integer from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
};

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** A JSON value as a database returns it: a copy through JSON, so an in-memory store never shares the caller's and keeps exactly what jsonb would. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The shared rules; `z.output` of each is what a store keeps. */
export const fieldRules = {
  /** An id, a name, any required text: non-empty, no NUL. */
  text: z.string({ error: TEXT }).min(1, TEXT).refine(withoutNul, TEXT),
  /** Optional free text (a description, a prompt): possibly empty, no NUL. */
  string: z.string({ error: STRING }).refine(withoutNul, STRING),
  integer,
  /** A priority: any PostgreSQL `integer`, higher first. */
  priority: integer(),
  /** A page size as every list takes it. */
  limit: integer(1, 1_000),
  /** A page offset. */
  offset: integer(0),
  boolean: z.boolean({ error: "must be a boolean" }),
  /** A finite number of at least 0 (`z.number()` refuses NaN and ±Infinity). */
  nonNegativeNumber: z.number({ error: "must be a finite number of at least 0" }).min(0, "must be a finite number of at least 0"),
  /** A finite number above 0. */
  positiveNumber: z.number({ error: "must be a finite number above 0" }).positive("must be a finite number above 0"),
  /** A time-to-live in minutes: above 0, at most {@link TTL_MAX_MINUTES} (a hundred years). */
  ttlMinutes: z
    .number({ error: `must be a number of minutes above 0 and at most ${TTL_MAX_MINUTES}` })
    .positive(`must be a number of minutes above 0 and at most ${TTL_MAX_MINUTES}`)
    .max(TTL_MAX_MINUTES, `must be a number of minutes above 0 and at most ${TTL_MAX_MINUTES}`),
  /** A time as whole epoch milliseconds: what a Date (and so a timestamptz read back) holds exactly. */
  epochMs: z
    .number({ error: "must be whole epoch milliseconds" })
    .int("must be whole epoch milliseconds")
    .min(-MAX_EPOCH_MS, "must be whole epoch milliseconds")
    .max(MAX_EPOCH_MS, "must be whole epoch milliseconds"),
  /** A Date that is not Invalid Date. */
  date: z.date({ error: "must be a valid Date" }),
  /** A URL the gateway fetches: `http` or `https` only, never a file or a script. */
  httpUrl: z.string({ error: "must be an http or https URL" }).refine(isHttpUrl, "must be an http or https URL").refine(withoutNul, "must be an http or https URL"),
  /** Free-form JSON (metadata, a payload, a config) as an object, within the bounds of `jsonBounds.ts`. */
  jsonObject: boundedJson(z.record(z.string(), z.unknown(), { error: "must be an object" })),
  /** Any free-form JSON value within the same bounds (a task's result). */
  jsonValue: boundedJson(z.unknown()),
  /** {@link fieldRules.jsonObject} as a store keeps it (a copy; not for the edge, whose schemas describe input). */
  storedJsonObject: boundedJson(z.record(z.string(), z.unknown(), { error: "must be an object" })).transform(jsonCopy),
  /** {@link fieldRules.jsonValue} as a store keeps it. */
  storedJsonValue: boundedJson(z.unknown()).transform(jsonCopy),
};
