import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src";

const withCode = (code: string, message = "failed") => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["admin shutdown (pg_terminate_backend)", withCode("57P01", "terminating connection due to administrator command")],
    ["crash shutdown", withCode("57P02")],
    ["server starting up", withCode("57P03", "the database system is starting up")],
    ["too many connections", withCode("53300", "sorry, too many clients already")],
    ["a connection exception (class 08)", withCode("08006")],
    ["connection reset", withCode("ECONNRESET", "read ECONNRESET")],
    ["connection refused", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["socket timeout", withCode("ETIMEDOUT")],
    ["broken pipe", withCode("EPIPE")],
    ["pg: connection terminated", new Error("Connection terminated unexpectedly")],
    ["pg: connect timeout", new Error("Connection terminated due to connection timeout")],
    ["pg: a client's connect timeout", new Error("timeout expired")],
    ["pg-pool: connect timeout", new Error("timeout exceeded when trying to connect")],
    ["pg: query_timeout", new Error("Query read timeout")],
    ["pg: a client that lost its connection", new Error("Client has encountered a connection error and is not queryable")],
    ["wrapped as a cause", new Error("could not load thread", { cause: withCode("57P01") })],
    ["inside an AggregateError", new AggregateError([new Error("other"), withCode("ECONNREFUSED")])],
  ])("%s is unavailability", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a unique violation", withCode("23505", "duplicate key value violates unique constraint")],
    ["a syntax error", withCode("42601")],
    ["a statement cancelled by statement_timeout (the statement's own cost, not the server's state)", withCode("57014")],
    ["a serialization failure", withCode("40001")],
    ["an unrelated error", new Error("boom")],
    ["a store's own code", withCode("QUEUE_FULL")],
    ["not an error", "Connection terminated"],
    ["nothing", undefined],
  ])("%s is not", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("survives a cycle of causes", () => {
    const a: Error & { cause?: unknown } = new Error("a");
    a.cause = new Error("b", { cause: a });
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
