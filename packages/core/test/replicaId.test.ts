import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { getReplicaId, resolveReplicaId } from "../src";

describe("replica identity", () => {
  it("uses AXIOM_REPLICA_ID, trimmed", () => {
    expect(resolveReplicaId({ AXIOM_REPLICA_ID: "  replica-a " })).toBe("replica-a");
  });

  it("falls back to hostname:pid when unset or blank", () => {
    expect(resolveReplicaId({})).toBe(`${hostname()}:${process.pid}`);
    expect(resolveReplicaId({ AXIOM_REPLICA_ID: "   " })).toBe(`${hostname()}:${process.pid}`);
  });

  it("stays stable for the life of the process", () => {
    const first = getReplicaId();
    const before = process.env.AXIOM_REPLICA_ID;
    process.env.AXIOM_REPLICA_ID = `${first}-changed`;
    try {
      expect(getReplicaId()).toBe(first);
    } finally {
      if (before === undefined) delete process.env.AXIOM_REPLICA_ID;
      else process.env.AXIOM_REPLICA_ID = before;
    }
  });
});
