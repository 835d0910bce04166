import { InMemoryLeaseStore } from "../../src";

export { type LogEntry, recordingLogger } from "@axiom-lattice/testing";

/**
 * An in-memory store whose clock can be pushed forward, so a test can force a live lease to expire
 * while its heartbeat keeps running.
 */
export function storeWithMovableClock(): { store: InMemoryLeaseStore; advance(ms: number): void } {
  let offset = 0;
  return {
    store: new InMemoryLeaseStore(() => Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** An in-memory store whose releases fail, as when the database connection drops at the end of the work. */
export class FailingReleaseStore extends InMemoryLeaseStore {
  override async release(): Promise<boolean> {
    throw new Error("connection reset");
  }
}
