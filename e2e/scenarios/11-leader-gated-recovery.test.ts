import { describe, expect, it } from "vitest";
import { useCluster } from "../harness/cluster";

describe("scenario 11: leader-gated startup recovery", () => {
  const cluster = useCluster();

  it("3 replicas start together: startup recovery runs on exactly one, the others skip it", async () => {
    const replicas = await cluster.start(3);
    const outcomes = replicas.map((replica) =>
      replica
        .logLines()
        .filter((line) => line.phase === "startup_recovery")
        .map((line) => String(line.msg)),
    );
    expect(outcomes.filter((lines) => lines.includes("startup recovery ran on this replica"))).toHaveLength(1);
    expect(outcomes.filter((lines) => lines.includes("startup recovery skipped (another replica leads)"))).toHaveLength(2);
    expect(outcomes.every((lines) => lines.length === 1)).toBe(true);
  });
});
