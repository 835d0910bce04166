import type { OutboxPage } from "@axiom-lattice/protocols";
import { InMemoryOutboxStore } from "../../src";

/**
 * An in-memory log whose reads can be held behind a pretend horizon (as while an older transaction
 * is still open in PostgreSQL), or made to fail.
 */
export class ControllableOutboxStore extends InMemoryOutboxStore {
  holdBackMs: number | null = null;
  failNextReads = 0;
  reads = 0;

  override async readAfter(cursor: string | null, limit: number): Promise<OutboxPage> {
    this.reads += 1;
    if (this.failNextReads > 0) {
      this.failNextReads -= 1;
      throw new Error("database unavailable");
    }
    if (this.holdBackMs !== null) return { events: [], pendingAboveHorizon: true, horizonAgeMs: this.holdBackMs, readAt: new Date() };
    return super.readAfter(cursor, limit);
  }
}
