import { setTimeout as sleep } from "node:timers/promises";
import { type ThreadRunScope, getThreadRunOwner } from "@axiom-lattice/core";
import type { LeaseStore } from "@axiom-lattice/protocols";

export interface RunAffinityOptions {
  /** The leases naming which replica runs each thread. */
  leases: LeaseStore;
  /** This replica's id, as its thread-run leases name it. */
  replicaId: string;
  /**
   * Strict affinity: a thread's stream is served only by the replica running it, its other clients sent
   * there (`affinity_miss`). Off: any replica follows a peer's run (through the run event log).
   */
  strict: boolean;
  /** How long a stream of a message just queued waits for a peer running the thread to let it go. */
  graceMs: number;
}

/** Which replica serves a thread's run stream: this one, or the peer running the thread (strict affinity only). */
export class RunAffinity {
  constructor(private readonly options: RunAffinityOptions) {}

  /** The peer replica running the thread, to send a stream's client to; `null`: this replica serves it. */
  async peerOwner(scope: ThreadRunScope): Promise<string | null> {
    const { strict, leases, replicaId } = this.options;
    if (!strict) return null;
    const owner = await getThreadRunOwner(scope, { store: leases });
    return owner && owner !== replicaId ? owner : null;
  }

  /**
   * As {@link peerOwner}, for the stream of a message just queued: a peer still running the thread after
   * the grace keeps it; one that let it go within the grace leaves the message to this replica's stream.
   */
  async peerOwnerAfterGrace(scope: ThreadRunScope): Promise<string | null> {
    if (!(await this.peerOwner(scope))) return null;
    await sleep(this.options.graceMs);
    return this.peerOwner(scope);
  }
}
