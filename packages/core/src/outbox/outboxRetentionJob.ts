import type { OutboxStore } from "@axiom-lattice/protocols";
import { RetentionJob, type RetentionJobOptions } from "../retention/retentionJob";

export interface OutboxRetentionJobOptions extends Omit<RetentionJobOptions, "subject" | "prune"> {
  store: Pick<OutboxStore, "pruneOlderThan">;
}

/**
 * Prunes outbox events older than the retention. Safe because pollers only read forward from where
 * they started: by the time an event is a day old every live poller has long passed it.
 */
export class OutboxRetentionJob extends RetentionJob {
  constructor({ store, ...options }: OutboxRetentionJobOptions) {
    super({ ...options, subject: "outbox", prune: (olderThanMs) => store.pruneOlderThan(olderThanMs) });
  }
}
