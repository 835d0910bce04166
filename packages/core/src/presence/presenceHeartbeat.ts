import type { ReplicaAnnouncement, ReplicaPresenceStore } from "@axiom-lattice/protocols";
import type { Logger } from "../logging/logger";
import { REPLICA_PRESENCE_INTERVAL_MS, REPLICA_PRESENCE_MISSED_BEATS } from "../defaults";

export interface PresenceHeartbeatOptions {
  store: ReplicaPresenceStore;
  /** What the replica says about itself now; read at every announcement. */
  describe: () => ReplicaAnnouncement;
  /** Default 5 s. */
  intervalMs?: number;
  /** How long an announcement keeps the replica present (default: three intervals). */
  ttlMs?: number;
  logger: Logger;
}

export interface PresenceHeartbeat {
  /** Stops announcing and withdraws the presence, so peers stop listing the replica at once. */
  stop(): Promise<void>;
}

/**
 * Announces this replica's presence now (awaited: it is listed once this resolves) and every
 * interval after. A failed announcement is logged and retried at the next interval: presence is
 * for operators, never a reason for a replica to stop serving.
 */
export async function startPresenceHeartbeat({
  store,
  describe,
  intervalMs = REPLICA_PRESENCE_INTERVAL_MS,
  ttlMs = REPLICA_PRESENCE_MISSED_BEATS * intervalMs,
  logger,
}: PresenceHeartbeatOptions): Promise<PresenceHeartbeat> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const announce = async () => {
    try {
      await store.announce(describe(), ttlMs);
    } catch (error) {
      logger.warn({ phase: "presence", err: error }, "presence announcement failed; retrying at the next interval");
    }
  };
  const beat = () => {
    timer = setTimeout(() => {
      inFlight = announce().then(() => {
        if (!stopped) beat();
      });
    }, intervalMs);
    timer.unref();
  };

  await announce();
  beat();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      try {
        await store.withdraw(describe().replicaId);
      } catch (error) {
        logger.warn({ phase: "presence", err: error }, "presence withdrawal failed; it lapses at its ttl");
      }
    },
  };
}
