import { type Logger, type PresenceHeartbeat, startPresenceHeartbeat } from "@axiom-lattice/core";
import type { ReplicaAnnouncement, ReplicaPresenceStore } from "@axiom-lattice/protocols";
import type { Subsystem } from "../context/subsystem";

/** Announces this replica (`describe`, read at every announcement) to `GET /api/cluster` while it runs; withdraws it when stopped. */
export function presenceSubsystem(options: {
  store: ReplicaPresenceStore;
  describe: () => ReplicaAnnouncement;
  intervalMs: number;
  logger: Logger;
}): Subsystem {
  let heartbeat: PresenceHeartbeat | undefined;
  let stopped = false;
  return {
    name: "presence",
    async start() {
      heartbeat = await startPresenceHeartbeat(options);
      // Stopped while announcing: withdraw what was just announced.
      if (stopped) await heartbeat.stop();
    },
    async stop() {
      stopped = true;
      await heartbeat?.stop();
    },
  };
}

/** What this replica announces about itself, as of each call. */
export function replicaDescriber(replica: {
  replicaId: string;
  version: string;
  startedAt: Date;
  storeMode: ReplicaAnnouncement["storeMode"];
  role: ReplicaAnnouncement["role"];
  keyVersions: string[];
  activeRuns: () => number;
  outboxStats: () => { cursor: ReplicaAnnouncement["outboxCursor"]; lagMs: number };
}): () => ReplicaAnnouncement {
  const { activeRuns, outboxStats, ...fixed } = replica;
  return () => {
    const { cursor, lagMs } = outboxStats();
    return { ...fixed, activeRuns: activeRuns(), outboxCursor: cursor, outboxLagMs: Math.round(lagMs) };
  };
}
