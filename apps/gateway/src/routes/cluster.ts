import { LEASE_LIST_MAX, MAINTENANCE_LEASE_KEY, holderLabel, leaderLeaseKey } from "@axiom-lattice/core";
import { type LeaseRecord, REPLICA_ROLES, type ReplicaPresence } from "@axiom-lattice/protocols";
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { apiErrors } from "../openapi/errorResponses";
import { leaseKind } from "../metrics/gatewayMetrics";
import type { GatewayStores } from "../stores/gatewayStores";

export interface ClusterRouteOptions {
  /** This replica's id, marking it in the listing. */
  replicaId: string;
  stores: Pick<GatewayStores, "presence" | "lease" | "outbox">;
}

/** Every leader lease (`runAsLeader`, the maintenance loop) starts so. */
const LEADER_PREFIX = leaderLeaseKey("");

const isoDate = z.iso.datetime();

const replicaView = z.object({
  replica_id: z.string(),
  version: z.string(),
  started_at: isoDate,
  store_mode: z.enum(["memory", "postgresql"]),
  role: z.enum(REPLICA_ROLES).describe("AXIOM_ROLE: all, api (serves the API, runs nothing) or worker (runs messages, serves no API)"),
  active_runs: z.number().int(),
  key_versions: z
    .array(z.string())
    .nullable()
    .describe("The LATTICE_ENCRYPTION_KEY versions it opens secrets with, the one it seals with first; `null` from a replica too old to say"),
  last_seen_at: isoDate,
  expires_at: isoDate,
  outbox: z.object({
    cursor: z.string().nullable().describe("The replica's poller cursor at its last announcement; `null` before its poller started"),
    lag_seconds: z.number().describe("How long the oldest event of its poller's last page had waited when read"),
  }),
});

const leaderView = z.object({ name: z.string(), replica_id: z.string(), acquired_at: isoDate, expires_at: isoDate });

/** `GET /api/cluster`: what every replica sharing this database looks like from here. */
export const clusterResponseSchema = z.object({
  replica_id: z.string().describe("The replica that answered"),
  maintenance_leader: z.string().nullable().describe("The replica running the maintenance loop now; `null` while nobody holds `leader:maintenance`"),
  replicas: z.array(replicaView).describe("Replicas whose presence has not lapsed, by replica id"),
  outbox: z.object({
    head_cursor: z.string().nullable().describe("Cursor of the newest deliverable event: a replica whose cursor stays behind it is lagging"),
  }),
  leases: z.object({
    leaders: z.array(leaderView).describe("Leader leases in full: cluster jobs, no tenant data"),
    held: z
      .array(z.object({ kind: z.string(), replica_id: z.string(), count: z.number().int() }))
      .describe("Every live lease counted by kind and holding replica; keys are left out (they name tenants and threads)"),
    truncated: z.boolean().describe("More than the listing bound were live: the counts cover the first ones in key order"),
  }),
});

export type ClusterResponse = z.infer<typeof clusterResponseSchema>;

function toReplicaView(replica: ReplicaPresence): z.output<typeof replicaView> {
  return {
    replica_id: replica.replicaId,
    version: replica.version,
    started_at: replica.startedAt.toISOString(),
    store_mode: replica.storeMode,
    role: replica.role,
    active_runs: replica.activeRuns,
    key_versions: replica.keyVersions ?? null,
    last_seen_at: replica.lastSeenAt.toISOString(),
    expires_at: replica.expiresAt.toISOString(),
    outbox: { cursor: replica.outboxCursor, lag_seconds: replica.outboxLagMs / 1000 },
  };
}

function toLeaderView(lease: LeaseRecord): z.output<typeof leaderView> {
  return {
    name: lease.key.slice(LEADER_PREFIX.length),
    replica_id: holderLabel(lease.holder),
    acquired_at: lease.acquiredAt.toISOString(),
    expires_at: lease.expiresAt.toISOString(),
  };
}

function countByKindAndReplica(leases: LeaseRecord[]): ClusterResponse["leases"]["held"] {
  const counts = new Map<string, { kind: string; replica_id: string; count: number }>();
  for (const lease of leases) {
    const kind = leaseKind(lease.key);
    const replicaId = holderLabel(lease.holder);
    const id = JSON.stringify([kind, replicaId]);
    const entry = counts.get(id) ?? { kind, replica_id: replicaId, count: 0 };
    entry.count += 1;
    counts.set(id, entry);
  }
  return [...counts.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.replica_id.localeCompare(b.replica_id));
}

/** `GET /api/cluster` (admin): replicas, leader, leases and outbox positions, across every tenant. */
export const clusterRoute: FastifyPluginAsync<ClusterRouteOptions> = async (app, { replicaId, stores }) => {
  app.get(
    "/api/cluster",
    {
      schema: {
        tags: ["cluster"],
        summary: "The replicas sharing this database, their leases and outbox positions, and the maintenance leader (admin; spans every tenant)",
        response: { 200: clusterResponseSchema, ...apiErrors() },
      },
    },
    async (): Promise<ClusterResponse> => {
      const [replicas, leases, headCursor] = await Promise.all([
        stores.presence.listPresent(),
        stores.lease.list({ limit: LEASE_LIST_MAX }),
        stores.outbox.latestId(),
      ]);
      const leader = leases.find((lease) => lease.key === MAINTENANCE_LEASE_KEY) ?? (await stores.lease.get(MAINTENANCE_LEASE_KEY));
      const leaders = leases.filter((lease) => lease.key.startsWith(LEADER_PREFIX));
      return {
        replica_id: replicaId,
        maintenance_leader: leader ? holderLabel(leader.holder) : null,
        replicas: replicas.map(toReplicaView),
        outbox: { head_cursor: headCursor },
        leases: { leaders: leaders.map(toLeaderView), held: countByKindAndReplica(leases), truncated: leases.length === LEASE_LIST_MAX },
      };
    },
  );
};
