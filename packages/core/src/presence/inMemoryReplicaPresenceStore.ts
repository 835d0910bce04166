import type { ReplicaAnnouncement, ReplicaPresence, ReplicaPresenceStore } from "@axiom-lattice/protocols";
import { requireText } from "../stores/storeArguments";
import { REPLICA_PRESENCE_RETENTION_MS } from "../defaults";
import { validateAnnouncement } from "./presenceArguments";

/** {@link ReplicaPresenceStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryReplicaPresenceStore implements ReplicaPresenceStore {
  private readonly presences = new Map<string, ReplicaPresence>();

  constructor(private readonly now: () => number = Date.now) {}

  async announce(announcement: ReplicaAnnouncement, ttlMs: number): Promise<ReplicaPresence> {
    const valid = validateAnnouncement(announcement, ttlMs);
    const now = this.now();
    for (const [replicaId, presence] of this.presences) {
      if (presence.expiresAt.getTime() < now - REPLICA_PRESENCE_RETENTION_MS) this.presences.delete(replicaId);
    }
    const presence: ReplicaPresence = { ...valid, startedAt: new Date(valid.startedAt), lastSeenAt: new Date(now), expiresAt: new Date(now + ttlMs) };
    this.presences.set(valid.replicaId, presence);
    return copy(presence);
  }

  async listPresent(): Promise<ReplicaPresence[]> {
    const now = this.now();
    return [...this.presences.values()]
      .filter((presence) => presence.expiresAt.getTime() > now)
      .sort((a, b) => (a.replicaId < b.replicaId ? -1 : a.replicaId > b.replicaId ? 1 : 0))
      .map(copy);
  }

  async withdraw(replicaId: string): Promise<boolean> {
    return this.presences.delete(requireText(replicaId, "replicaId"));
  }
}

const copy = (presence: ReplicaPresence): ReplicaPresence => ({
  ...presence,
  startedAt: new Date(presence.startedAt),
  ...(presence.keyVersions ? { keyVersions: [...presence.keyVersions] } : {}),
  lastSeenAt: new Date(presence.lastSeenAt),
  expiresAt: new Date(presence.expiresAt),
});
