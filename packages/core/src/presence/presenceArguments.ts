import { REPLICA_ROLES, type ReplicaAnnouncement } from "@axiom-lattice/protocols";
import { StoreArgumentError, requireInteger, requirePositiveNumber, requireText } from "../stores/storeArguments";

const STORE_MODES = new Set(["memory", "postgresql"]);
/** More versions than any rotation keeps at once. */
const MAX_KEY_VERSIONS = 64;
const ROLES = new Set<string>(REPLICA_ROLES);

const requireDate = (value: unknown, what: string): Date => {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreArgumentError(`${what} must be a valid Date`);
  return value;
};

/** Checks what `ReplicaPresenceStore.announce` takes; throws `StoreArgumentError`, so nothing is written. */
export function validateAnnouncement(announcement: unknown, ttlMs: unknown): ReplicaAnnouncement {
  if (typeof announcement !== "object" || announcement === null) throw new StoreArgumentError("announcement must be an object");
  const a = announcement as Record<string, unknown>;
  requireText(a.replicaId, "replicaId");
  requireText(a.version, "version");
  requireDate(a.startedAt, "startedAt");
  if (!STORE_MODES.has(a.storeMode as string)) throw new StoreArgumentError(`storeMode must be "memory" or "postgresql", got ${String(a.storeMode)}`);
  if (!ROLES.has(a.role as string)) throw new StoreArgumentError(`role must be one of ${REPLICA_ROLES.join(", ")}, got ${String(a.role)}`);
  requireInteger(a.activeRuns, "activeRuns", 0);
  if (a.outboxCursor !== null) requireText(a.outboxCursor, "outboxCursor");
  requireInteger(a.outboxLagMs, "outboxLagMs", 0);
  if (a.keyVersions !== undefined) {
    if (!Array.isArray(a.keyVersions) || a.keyVersions.length > MAX_KEY_VERSIONS) {
      throw new StoreArgumentError(`keyVersions must be an array of at most ${MAX_KEY_VERSIONS} key versions`);
    }
    for (const keyVersion of a.keyVersions) requireText(keyVersion, "keyVersions[]");
  }
  requirePositiveNumber(ttlMs, "ttlMs");
  const { replicaId, version, startedAt, storeMode, role, activeRuns, outboxCursor, outboxLagMs, keyVersions } = announcement as ReplicaAnnouncement;
  return { replicaId, version, startedAt, storeMode, role, activeRuns, outboxCursor, outboxLagMs, ...(keyVersions ? { keyVersions: [...keyVersions] } : {}) };
}
