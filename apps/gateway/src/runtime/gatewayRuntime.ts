import { AgentInstanceManager } from "@axiom-lattice/agent";
import {
  DefaultScheduleClient,
  OutboxPoller,
  type OutboxPollerStats,
  OutboxRetentionJob,
  RetentionJob,
  configureCoordinationLeaseStore,
  getLogger,
  getReplicaId,
  getStoreLattice,
  projectTaskAdmissionNotifier,
  runAsLeader,
  taskLifecycleNotifier,
} from "@axiom-lattice/core";
import { PROJECT_TASK_ADMISSION_TOPIC, SCHEDULE_CHANGED_TOPIC, TASK_LIFECYCLE_TOPIC } from "@axiom-lattice/protocols";
import type { GatewayConfig } from "../config";
import { AGENT_MESSAGE_TASK_TYPE, createAgentMessageHandler } from "../schedules/agentMessageHandler";
import { type GatewayStores, createGatewayStores } from "./gatewayStores";

/** Everything a gateway process runs besides its HTTP routes. */
export interface GatewayRuntime {
  replicaAffinity: boolean;
  affinityGraceMs: number;
  stores: GatewayStores;
  agents: AgentInstanceManager;
  schedules: DefaultScheduleClient;
  /** Deletes completed runs older than `AXIOM_RUN_RETENTION_HOURS`; started by `startBackground`. */
  runRetention: RetentionJob;
  /** This replica's outbox delivery counters. */
  outboxStats(): OutboxPollerStats;
  threads: ReturnType<typeof getStoreLattice<"thread">>;
  assistants: ReturnType<typeof getStoreLattice<"assistant">>;
  queue: ReturnType<typeof getStoreLattice<"threadMessageQueue">>;
  /** Startup recovery on exactly one replica (leader gate), then every replica arms its schedules. */
  recover(): Promise<void>;
  /** Starts background work (outbox poller, outbox and run retention, queue sweep) once the server listens. */
  startBackground(): Promise<void>;
  /** Stops background work, hands running messages back, releases leases, closes the stores. */
  close(): Promise<void>;
}

/** How often each replica looks for threads with pending messages and no run owner. */
const QUEUE_SWEEP_INTERVAL_MS = 2_000;
/** Replicas that start within this window of the leader skip startup recovery. */
const STARTUP_RECOVERY_TTL_MS = 5 * 60_000;

const MULTI_REPLICA_KINDS = ["lease", "outbox", "threadMessageQueue", "schedule", "thread", "assistant"] as const;

export async function createGatewayRuntime(config: GatewayConfig): Promise<GatewayRuntime> {
  const log = getLogger();
  const replicaId = getReplicaId();
  const stores = await createGatewayStores(config.databaseUrl);
  const lease = getStoreLattice("default", "lease");
  const outbox = getStoreLattice("default", "outbox");
  configureCoordinationLeaseStore(lease);
  taskLifecycleNotifier.setOutbox(outbox);
  projectTaskAdmissionNotifier.setOutbox(outbox);

  if (config.replicaId && stores.kind === "memory") {
    log.warn(
      { phase: "startup", stores: MULTI_REPLICA_KINDS },
      "AXIOM_REPLICA_ID is set but every store is in-memory (per-process only): set DATABASE_URL to run several replicas",
    );
  }

  const agents = new AgentInstanceManager({
    wakeup: stores.queueWakeup,
    maxConcurrentRuns: config.maxConcurrentRuns,
    threadRunTtlMs: config.runLeaseMs,
    claimLeaseMs: config.runLeaseMs,
  });
  const schedules = new DefaultScheduleClient({
    storage: getStoreLattice("default", "schedule"),
    onChange: async (taskId) => {
      await outbox.append({ topic: SCHEDULE_CHANGED_TOPIC, payload: { taskId }, originReplicaId: replicaId });
    },
  });
  schedules.registerHandler(
    AGENT_MESSAGE_TASK_TYPE,
    createAgentMessageHandler(async ({ tenantId, assistantId, threadId, message, messageId }) => {
      await agents.getAgent({ tenantId, assistantId, threadId }).addMessage({ message }, { mode: "queue", messageId });
    }),
  );

  const poller = new OutboxPoller({
    store: outbox,
    owner: replicaId,
    handlers: {
      [TASK_LIFECYCLE_TOPIC]: async (payload) => taskLifecycleNotifier.deliverFromOutbox(payload),
      [PROJECT_TASK_ADMISSION_TOPIC]: async (payload) => projectTaskAdmissionNotifier.deliverFromOutbox(payload),
      [SCHEDULE_CHANGED_TOPIC]: async (payload) => {
        const taskId = (payload as { taskId?: unknown } | null)?.taskId;
        if (typeof taskId === "string") await schedules.handleScheduleChanged(taskId);
      },
    },
  });
  const queue = getStoreLattice("default", "threadMessageQueue");
  const outboxRetention = new OutboxRetentionJob({ store: outbox, retentionHours: config.outboxRetentionHours });
  // Completed runs are history (…/runs, resume_stream of a finished message); nothing needs them to
  // make progress once they are hours old, the least retention there is.
  const runRetention = new RetentionJob({
    subject: "run",
    prune: (olderThanMs) => queue.pruneRunsOlderThan(olderThanMs),
    retentionHours: config.runRetentionHours,
  });

  let started = false;
  let closed: Promise<void> | undefined;
  return {
    // Affinity answers only make sense when replicas have stable, distinct names.
    replicaAffinity: config.replicaId !== undefined,
    affinityGraceMs: config.affinityGraceMs,
    stores,
    agents,
    schedules,
    runRetention,
    outboxStats: () => poller.stats(),
    threads: getStoreLattice("default", "thread"),
    assistants: getStoreLattice("default", "assistant"),
    queue,
    async recover() {
      const outcome = await runAsLeader(lease, "startup-recovery", () => schedules.restore(), { hold: true, ttlMs: STARTUP_RECOVERY_TTL_MS });
      if (outcome.ran) {
        log.info({ phase: "startup_recovery", result: outcome.result }, "startup recovery ran on this replica");
      } else {
        log.info({ phase: "startup_recovery" }, "startup recovery skipped (another replica leads)");
        await schedules.armActive();
      }
    },
    async startBackground() {
      if (started) return;
      started = true;
      await poller.start();
      outboxRetention.start();
      runRetention.start();
      agents.startQueueSweep({ intervalMs: QUEUE_SWEEP_INTERVAL_MS });
    },
    close() {
      closed ??= (async () => {
        await schedules.stop();
        await poller.stop();
        await outboxRetention.stop();
        await runRetention.stop();
        await agents.shutdown();
        taskLifecycleNotifier.setOutbox(null);
        projectTaskAdmissionNotifier.setOutbox(null);
        configureCoordinationLeaseStore(undefined);
        await stores.dispose();
      })();
      return closed;
    },
  };
}
