import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseRetentionHours } from "../src";

describe("loadConfig", () => {
  it("defaults to port 4001, loopback, in-memory stores", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4001, host: "127.0.0.1", databaseUrl: undefined, affinityGraceMs: 500, outboxRetentionHours: 24 });
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "-1"],
    ["DATABASE_URL", "mysql://x"],
    ["AXIOM_REPLICA_ID", "has space"],
    ["AXIOM_REPLICA_ID", "r".repeat(129)],
    ["AXIOM_AFFINITY_GRACE_MS", "soon"],
    ["LOG_LEVEL", "loud"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it("treats retention 0, negative or non-integer as disabled", () => {
    expect(parseRetentionHours(undefined)).toBe(24);
    expect(parseRetentionHours("48")).toBe(48);
    expect(parseRetentionHours("0")).toBe(0);
    expect(parseRetentionHours("-3")).toBe(0);
    expect(parseRetentionHours("1.5")).toBe(0);
    expect(parseRetentionHours("soon")).toBe(0);
  });
});
