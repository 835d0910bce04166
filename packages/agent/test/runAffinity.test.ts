import { InMemoryLeaseStore, type Logger, type ThreadRunHandle, tryAcquireThreadRun } from "@axiom-lattice/core";
import { describe, expect, it } from "vitest";
import { RunAffinity, type RunAffinityOptions } from "../src";

const scope = { tenantId: "t", assistantId: "a", threadId: "th" };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/** A lease store that lets a test act right after each read of a lease. */
class ObservedLeaseStore extends InMemoryLeaseStore {
  afterRead: () => Promise<void> = async () => {};
  override async get(key: string) {
    const record = await super.get(key);
    await this.afterRead();
    return record;
  }
}

function affinity(options: Partial<RunAffinityOptions> = {}) {
  const leases = options.leases ?? new ObservedLeaseStore();
  return { leases, affinity: new RunAffinity({ leases, replicaId: "self", strict: true, graceMs: 1, ...options }) };
}

const runBy = (leases: InMemoryLeaseStore, replicaId: string) => tryAcquireThreadRun(scope, { store: leases, replicaId, logger: silent });

describe("run affinity", () => {
  it("names the peer running the thread, under strict affinity only", async () => {
    const { leases, affinity: strict } = affinity();
    expect(await strict.peerOwner(scope)).toBeNull();
    const held = (await runBy(leases as InMemoryLeaseStore, "peer"))!;
    expect(await strict.peerOwner(scope)).toBe("peer");
    expect(await strict.peerOwnerAfterGrace(scope)).toBe("peer");
    expect(await affinity({ leases, strict: false }).affinity.peerOwner(scope)).toBeNull();
    await held.release();
  });

  it("serves the stream itself when this replica runs the thread", async () => {
    const { leases, affinity: strict } = affinity();
    const held = (await runBy(leases as InMemoryLeaseStore, "self"))!;
    expect(await strict.peerOwner(scope)).toBeNull();
    await held.release();
  });

  it("keeps a just-queued message's stream when the peer lets the thread go within the grace", async () => {
    const leases = new ObservedLeaseStore();
    const { affinity: strict } = affinity({ leases });
    let held: ThreadRunHandle | null = await runBy(leases, "peer");
    leases.afterRead = async () => {
      await held?.release();
      held = null;
    };
    expect(await strict.peerOwnerAfterGrace(scope)).toBeNull();
  });
});
