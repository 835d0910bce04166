import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src";

/** An error as node-postgres or Node raises it: a message and a `code` (a SQLSTATE or a socket error). */
const coded = (code: string, message = `failed with ${code}`) => Object.assign(new Error(message), { code });
const wrapping = (cause: unknown, depth = 1): Error => (depth === 0 ? (cause as Error) : new Error("wrapped", { cause: wrapping(cause, depth - 1) }));

describe("isDatabaseUnavailable", () => {
  it.each([
    ["57P01", "terminating connection due to administrator command"],
    ["57P02", "terminating connection due to crash of another server process"],
    ["57P03", "the database system is starting up"],
    ["53300", "sorry, too many clients already"],
    ["08006", "connection failure"],
    ["08001", "could not establish connection"],
    ["08P01", "protocol violation"],
  ])("is true for SQLSTATE %s (%s)", (code, message) => {
    expect(isDatabaseUnavailable(coded(code, message))).toBe(true);
  });

  it.each(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"])("is true for the socket error %s", (code) => {
    expect(isDatabaseUnavailable(coded(code))).toBe(true);
  });

  it.each([
    "Connection terminated",
    "Connection terminated unexpectedly",
    "Connection terminated due to connection timeout",
    "timeout exceeded when trying to connect",
    "Client has encountered a connection error and is not queryable",
  ])("is true for node-postgres's %j", (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it("finds the cause however the callers wrapped it, up to five levels", () => {
    expect(isDatabaseUnavailable(wrapping(coded("57P01"), 1))).toBe(true);
    expect(isDatabaseUnavailable(wrapping(coded("ECONNREFUSED"), 5))).toBe(true);
    expect(isDatabaseUnavailable(wrapping(coded("ECONNREFUSED"), 6))).toBe(false);
  });

  it.each([
    ["a syntax error", coded("42601", 'syntax error at or near "SELEC"')],
    ["a unique violation", coded("23505", "duplicate key value violates unique constraint")],
    ["a serialization failure", coded("40001", "could not serialize access")],
    ["a lock timeout", coded("55P03", "canceling statement due to lock timeout")],
    ["a statement cancelled", coded("57014", "canceling statement due to user request")],
    ["a plain error", new Error("the model failed on request")],
    ["a message naming a socket error, without its code", new Error("connect ECONNREFUSED 127.0.0.1:5432")],
    ["an application code", coded("UPSTREAM_UNREACHABLE", "The model API could not be reached")],
  ])("is false for %s", (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(wrapping(error, 2))).toBe(false);
  });

  it("is false for what is not an error, and ends on a cause cycle", () => {
    for (const value of [undefined, null, "Connection terminated", { code: "57P01" }, 57]) expect(isDatabaseUnavailable(value)).toBe(false);
    const cyclic = new Error("a");
    cyclic.cause = cyclic;
    expect(isDatabaseUnavailable(cyclic)).toBe(false);
  });
});
