import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { getReplicaId } from "../src";

describe("replica identity", () => {
  it("is hostname:pid, whatever the environment says (the gateway's configuration reads AXIOM_REPLICA_ID)", () => {
    const before = process.env.AXIOM_REPLICA_ID;
    process.env.AXIOM_REPLICA_ID = "from-the-environment";
    try {
      expect(getReplicaId()).toBe(`${hostname()}:${process.pid}`);
    } finally {
      if (before === undefined) delete process.env.AXIOM_REPLICA_ID;
      else process.env.AXIOM_REPLICA_ID = before;
    }
  });
});
