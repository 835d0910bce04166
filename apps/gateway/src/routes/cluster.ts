import { LEASE_LIST_MAX, MAINTENANCE_LEASE_KEY, holderLabel, leaderLeaseKey } from "@axiom-lattice/core";
import { type LeaseRecord, REPLICA_ROLES } from "@axiom-lattice/protocols";
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

/** `GET /api/cluster`: what every replica sharing this database looks like from here. */
export const clusterResponseSchema = z.object({
  /** The replica that answered. */
  replicaId: z.string(),
  /** The replica running the maintenance loop now; `null` while nobody holds `leader:maintenance`. */
  maintenanceLeader: z.string().nullable(),
  /** Replicas whose presence has not lapsed, by replica id. */
  replicas: z.array(
    z.object({
      replicaId: z.string(),
      version: z.string(),
      startedAt: isoDate,
      storeMode: z.enum(["memory", "postgresql"]),
      role: z.enum(REPLICA_ROLES).describe("AXIOM_ROLE: all, api (serves the API, runs nothing) or worker (runs messages, serves no API)"),
      activeRuns: z.number().int(),
      lastSeenAt: isoDate,
      expiresAt: isoDate,
      outbox: z.object({
        /** The replica's poller cursor at its last announcement; `null` before its poller started. */
        cursor: z.string().nullable(),
        /** How long the oldest event of its poller's last page had waited when read. */
        lagSeconds: z.number(),
      }),
    }),
  ),
  outbox: z.object({
    /** Cursor of the newest deliverable event: a replica whose cursor stays behind it is lagging. */
    headCursor: z.string().nullable(),
  }),
  leases: z.object({
    /** Leader leases in full: cluster jobs, no tenant data. */
    leaders: z.array(z.object({ name: z.string(), replicaId: z.string(), acquiredAt: isoDate, expiresAt: isoDate })),
    /** Every live lease counted by kind and holding replica; keys are left out (they name tenants and threads). */
    held: z.array(z.object({ kind: z.string(), replicaId: z.string(), count: z.number().int() })),
    /** More than the listing bound were live: the counts cover the first ones in key order. */
    truncated: z.boolean(),
  }),
});

export type ClusterResponse = z.infer<typeof clusterResponseSchema>;

function countByKindAndReplica(leases: LeaseRecord[]): ClusterResponse["leases"]["held"] {
  const counts = new Map<string, { kind: string; replicaId: string; count: number }>();
  for (const lease of leases) {
    const kind = leaseKind(lease.key);
    const replicaId = holderLabel(lease.holder);
    const id = JSON.stringify([kind, replicaId]);
    const entry = counts.get(id) ?? { kind, replicaId, count: 0 };
    entry.count += 1;
    counts.set(id, entry);
  }
  return [...counts.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.replicaId.localeCompare(b.replicaId));
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
        replicaId,
        maintenanceLeader: leader ? holderLabel(leader.holder) : null,
        replicas: replicas.map((replica) => ({
          replicaId: replica.replicaId,
          version: replica.version,
          startedAt: replica.startedAt.toISOString(),
          storeMode: replica.storeMode,
          role: replica.role,
          activeRuns: replica.activeRuns,
          lastSeenAt: replica.lastSeenAt.toISOString(),
          expiresAt: replica.expiresAt.toISOString(),
          outbox: { cursor: replica.outboxCursor, lagSeconds: replica.outboxLagMs / 1000 },
        })),
        outbox: { headCursor },
        leases: {
          leaders: leaders.map((lease) => ({
            name: lease.key.slice(LEADER_PREFIX.length),
            replicaId: holderLabel(lease.holder),
            acquiredAt: lease.acquiredAt.toISOString(),
            expiresAt: lease.expiresAt.toISOString(),
          })),
          held: countByKindAndReplica(leases),
          truncated: leases.length === LEASE_LIST_MAX,
        },
      };
    },
  );
};
