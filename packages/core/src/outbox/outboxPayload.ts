import { OutboxPayloadError } from "./outboxErrors";

// JSON.stringify drops or rewrites what it cannot carry ({ a: undefined } → {}, NaN → null,
// a Map → {}), so a peer would read something other than what was appended. Such payloads are
// refused instead. NUL and lone surrogates are refused because PostgreSQL's jsonb rejects them,
// and the in-memory store must refuse exactly what the PostgreSQL one does.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkString(value: string, path: string): void {
  if (value.includes("\u0000")) throw new OutboxPayloadError(`Outbox payload ${path} contains a NUL character`);
  if (LONE_SURROGATE.test(value)) throw new OutboxPayloadError(`Outbox payload ${path} contains a lone UTF-16 surrogate`);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function check(value: unknown, path: string, ancestors: object[]): void {
  switch (typeof value) {
    case "string":
      return checkString(value, path);
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new OutboxPayloadError(`Outbox payload ${path} is ${value}, which JSON cannot carry`);
      return;
    case "object":
      break;
    default:
      // undefined, function, symbol, bigint
      throw new OutboxPayloadError(`Outbox payload ${path} is ${typeof value === "bigint" ? "a bigint" : typeof value}, which JSON cannot carry`);
  }
  if (value === null) return;
  if (ancestors.includes(value)) throw new OutboxPayloadError(`Outbox payload ${path} refers back to itself (a cycle)`);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    // Dates and other self-serialising values are judged by what they turn into.
    return check(toJSON.call(value, path), path, [...ancestors, value]);
  }
  const within = [...ancestors, value];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) check(value[index], `${path}[${index}]`, within);
    return;
  }
  if (!isPlainObject(value)) {
    throw new OutboxPayloadError(`Outbox payload ${path} is a ${value.constructor?.name ?? "non-plain object"}, which JSON cannot carry`);
  }
  for (const [key, item] of Object.entries(value)) {
    checkString(key, `${path} key ${JSON.stringify(key)}`);
    check(item, `${path}.${key}`, within);
  }
}

/**
 * The payload as JSON text, after checking that JSON carries it faithfully; throws
 * {@link OutboxPayloadError} naming the offending path otherwise.
 */
export function serializeOutboxPayload(payload: unknown): string {
  check(payload, "payload", []);
  return JSON.stringify(payload);
}
