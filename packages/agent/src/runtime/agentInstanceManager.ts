import {
  type FencedTenure,
  type MessageQueueStore,
  InProcessQueueWakeup,
  type LatticeObserver,
  NO_OBSERVER,
  LeaseAcquireTimeoutError,
  type Logger,
  type QueueWakeup,
  THREAD_RUN_TTL_MS,
  type ThreadRunScope,
  defaultLogger,
  getReplicaId,
  threadRunLeaseKey,
  withLease,
} from "@axiom-lattice/core";
import type { AssistantStore, ItemStore, LeaseStore, RunEventLog, ThreadStore } from "@axiom-lattice/protocols";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { copyCheckpoints } from "../graph/checkpointCopy";
import { type CheckpointThreadRef, checkpointThreadId } from "../graph/checkpointThread";
import { Agent } from "./agent";
import { type ChunkBufferLimits, ChunkBuffers } from "./chunkBuffers";
import { ThreadBusyError } from "./errors";
import { type QueueSweepHandle, type QueueSweepOptions, startQueueSweep } from "./queueSweep";
import type { DeployedGraphs } from "../graph/deployedGraphs";
import { type CompletedRun, type RuntimeContext, type StateWrite, notifyPeers, threadBufferPrefix, writeThreadState } from "./runtimeContext";
import type { TaskRuntimeOptions } from "../tasks/taskRuntimeDeps";
import type { ModelProviderCatalog } from "../models/catalogModelConfig";
import { type DisabledToolSource, type TenantToolSource, ToolRegistry } from "../tools/toolRegistry";
import { RunEventWaits } from "./runEventWaits";
import { RunSlots } from "./runSlots";
import { ThreadProcessors } from "./threadProcessors";
import { ModelProviderRegistry } from "../models/modelRegistry";
import type { UpstreamPolicy } from "../models/upstreamPolicy";
import {
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_UPSTREAM_POLICY,
  DELETE_LEASE_WAIT_MS,
  PEER_WAKE_DELAY_MS,
  RUN_EVENT_FLUSH_MS,
  STREAM_POLL_MS,
} from "../defaults";

export interface AgentRuntimeOptions {
  queue: MessageQueueStore;
  leases: LeaseStore;
  assistants: Pick<AssistantStore, "getAssistant">;
  /** The tenants' model provider catalog, read at every run. Absent: assistants use registered providers only. */
  modelProviders?: ModelProviderCatalog;
  /** Where {@link AgentInstanceManager.deleteThread} deletes thread records. */
  threads: Pick<ThreadStore, "deleteThread">;
  /** A MemorySaver in one process; PostgresSaver for replicas. */
  checkpointer: BaseCheckpointSaver;
  /** The tenants' long-term memory, each run's graph reading its own tenant's (`getStore()`). */
  items: ItemStore;
  /** Default: wake-ups within this process only. */
  wakeup?: QueueWakeup;
  /** Claim lease of a running message, renewed every third of it (default: `threadRunTtlMs`). */
  claimLeaseMs?: number;
  /** Thread-run lease TTL, renewed every third of it (default `THREAD_RUN_TTL_MS`). */
  threadRunTtlMs?: number;
  /** How often a stream of a message running elsewhere checks whether it ended (default 1 s). */
  streamPollMs?: number;
  chunkBuffers?: Partial<ChunkBufferLimits>;
  /**
   * Where every run's stream is logged, so a stream of a run on another replica (or of one whose
   * buffer expired) is replayed and followed from it. Default: none (streams live in buffers only).
   */
  runEvents?: RunEventLog;
  /**
   * Whether the queue store reaches the lease store and the run event log given with it (one database,
   * as `createPostgreSQLStores` makes them, or one `createInMemoryStores` bundle). Then a run's last
   * events go with its completion (`RunOutcome.events`), and a tenure's release of the thread's lease
   * with its last look at the queue (`PendingMessagesOptions.afterReleasing`): one round trip for
   * each pair. Default: no, each goes to its own store.
   */
  joinedStores?: boolean;
  /** How long run events wait to be logged together (default `RUN_EVENT_FLUSH_MS`, 150 ms). */
  runEventFlushMs?: number;
  /**
   * Delay before telling the peers of a thread woken here (default 100 ms). This replica wakes its own
   * processor directly, so it normally takes the thread; peers are told only when it has not by then,
   * instead of every replica racing for the thread's lease on every enqueue.
   */
  peerWakeDelayMs?: number;
  /** Threads this replica runs at once (default 8); further ones wait, free for peers to take. */
  maxConcurrentRuns?: number;
  /**
   * Whether this replica runs messages (default `true`). Off, it still queues them, streams and
   * aborts runs, but leaves every run to its peers: it wakes them instead of a processor of its own,
   * ignores their wake-ups, and has no queue sweep (an `api` replica beside `worker` replicas).
   */
  executeRuns?: boolean;
  /**
   * Threads of one tenant this replica runs at once (default: `maxConcurrentRuns`). Slots are shared
   * fairly between tenants whatever this is; below `maxConcurrentRuns`, one tenant never holds them all.
   */
  maxConcurrentRunsPerTenant?: number;
  /** The key of the built-in `openai` model provider when an assistant's config has none (the gateway reads OPENAI_API_KEY). Default: none. */
  openAiApiKey?: string;
  /** Each model API call's timeout and retries, and where base URLs may send it (default `DEFAULT_UPSTREAM_POLICY`: 30 s, 2 retries, local networks allowed). */
  upstream?: Partial<UpstreamPolicy>;
  /** This replica's id: the label of its lease holders and claims (default `getReplicaId()`). */
  replicaId?: string;
  /** Where the runtime logs; default: a new `defaultLogger()`, built for this runtime alone. */
  logger?: Logger;
  /** Told about runs, their first chunks, and queue claims and reclaims (metrics). */
  observer?: LatticeObserver;
  /** Told of each run this replica recorded an outcome of, once it is recorded (a webhook, say). Default: none. */
  onRunCompleted?: (run: CompletedRun) => void;
  /** Tasks: gives every assistant the `task` tool and settles the runs of tasks. Default: no tasks. */
  tasks?: TaskRuntimeOptions;
  /** Each tenant's own tools (its MCP servers'), looked up when a run builds its graph. Default: none. */
  tenantTools?: TenantToolSource;
  /** The tools each tenant switched off, looked up when a run builds its graph. Default: none. */
  disabledTools?: DisabledToolSource;
  /** Graphs the operator deployed beside the ReAct agent, which assistants may run (`Assistant.graph`). Default: none. */
  graphs?: DeployedGraphs;
}

function runSlotsOf(options: AgentRuntimeOptions): RunSlots {
  const limit = options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS;
  return new RunSlots(limit, options.maxConcurrentRunsPerTenant ?? limit);
}

/** This process's agent runtime: the threads' agents and processors, sharing stores and buffers. */
export class AgentInstanceManager {
  /** The model providers this runtime's assistants may name: the built-ins and those registered here. */
  readonly models: ModelProviderRegistry;
  /** The tools this runtime's assistants may name: the built-ins and those registered here. */
  readonly tools: ToolRegistry;
  private readonly context: RuntimeContext;
  private readonly threads: Pick<ThreadStore, "deleteThread">;
  private readonly processors: ThreadProcessors;
  private readonly sweeps = new Set<QueueSweepHandle>();
  private readonly unsubscribe: () => void;
  private readonly peerWakes = new Set<NodeJS.Timeout>();
  private readonly peerWakeDelayMs: number;
  private readonly executeRuns: boolean;
  private closed = false;

  constructor(options: AgentRuntimeOptions) {
    const logger = (options.logger ?? defaultLogger()).child({ phase: "agent" });
    const threadRunTtlMs = options.threadRunTtlMs ?? THREAD_RUN_TTL_MS;
    this.models = new ModelProviderRegistry({ openAiApiKey: options.openAiApiKey });
    this.tools = new ToolRegistry();
    this.context = {
      queue: options.queue,
      leases: options.leases,
      assistants: options.assistants,
      modelProviders: options.modelProviders,
      checkpointer: options.checkpointer,
      items: options.items,
      wakeup: options.wakeup ?? new InProcessQueueWakeup({ logger }),
      buffers: new ChunkBuffers(options.chunkBuffers),
      runEvents: options.runEvents ? { log: options.runEvents, waits: new RunEventWaits(options.runEvents) } : undefined,
      joinedStores: options.joinedStores === true,
      runEventFlushMs: options.runEventFlushMs ?? RUN_EVENT_FLUSH_MS,
      // A claim lives as long as the lease it is taken under, and is renewed at the same pace.
      claimLeaseMs: options.claimLeaseMs ?? threadRunTtlMs,
      threadRunTtlMs,
      streamPollMs: options.streamPollMs ?? STREAM_POLL_MS,
      replicaId: options.replicaId ?? getReplicaId(),
      logger,
      observer: options.observer ?? NO_OBSERVER,
      onRunCompleted: options.onRunCompleted,
      upstream: { ...DEFAULT_UPSTREAM_POLICY, ...options.upstream },
      models: this.models,
      tools: this.tools,
      runSlots: runSlotsOf(options),
      tasks: options.tasks,
      tenantTools: options.tenantTools,
      graphs: options.graphs,
      disabledTools: options.disabledTools,
      wake: (scope) => this.wake(scope),
      isClosed: () => this.closed,
    };
    this.threads = options.threads;
    this.executeRuns = options.executeRuns ?? true;
    this.processors = new ThreadProcessors(this.context, this.executeRuns);
    this.peerWakeDelayMs = options.peerWakeDelayMs ?? PEER_WAKE_DELAY_MS;
    this.unsubscribe = this.context.wakeup.subscribe(({ abortRequested, waitsAtSender, ...scope }) => {
      // An abort concerns only the replica running the thread now, and at once.
      if (abortRequested) return void this.processors.get(scope)?.applyAbortRequest();
      if (!this.executeRuns) return;
      // A peer tells only of threads it could not take itself: act at once, with a run slot free.
      // Without one the thread would queue here too, behind this replica's own runs, and reach the
      // lease only after its sender ran it: a refused lease or an empty tenure. It waits in the
      // sender's line instead; should the sender go, the sweep finds it.
      if (waitsAtSender && !this.processors.get(scope) && !this.context.runSlots.hasFree(scope.tenantId)) return;
      void this.processors.wake(scope);
    });
  }

  /**
   * Gets a thread's queue processed: by this replica's processor at once (if it runs any), and by the
   * peers only if it has not taken the thread after {@link PEER_WAKE_DELAY_MS} (a replica that runs
   * no messages tells them at once).
   */
  async wake(scope: ThreadRunScope): Promise<void> {
    if (!this.executeRuns) return notifyPeers(this.context, scope);
    void this.processors.wake(scope);
    this.tellPeersUnlessTaken(scope);
  }

  /**
   * Tells the peers of the thread unless this replica holds its run lease by then, or its processor
   * already stopped (it drained the thread, or a peer holds the lease and looks at the queue before
   * letting go). Telling every replica of every message cost each peer a refused lease (or a whole
   * empty tenure) per message; now a peer hears of a thread only while this replica waits for a run
   * slot or for the database, and takes it only with a slot free. A lost notice is found by the
   * sweep, as before.
   */
  private tellPeersUnlessTaken(scope: ThreadRunScope): void {
    const timer = setTimeout(() => {
      this.peerWakes.delete(timer);
      const processor = this.processors.get(scope);
      if (processor && !processor.holdsLease) void notifyPeers(this.context, { ...scope, waitsAtSender: true });
    }, this.peerWakeDelayMs);
    this.peerWakes.add(timer);
  }

  /** The agent of a thread. */
  getAgent(scope: ThreadRunScope): Agent {
    return new Agent({ tenantId: scope.tenantId, assistantId: scope.assistantId, threadId: scope.threadId }, this.context, this.processors);
  }

  /** Starts this replica's sweep for threads with pending messages and no run owner; only a replica that runs messages has one. */
  startQueueSweep(options: QueueSweepOptions): QueueSweepHandle {
    if (!this.executeRuns) throw new Error("a runtime with executeRuns: false runs no messages, so it sweeps for none");
    const { runSlots } = this.context;
    const sweep = startQueueSweep(
      {
        ...this.context,
        wake: (scope) => void this.processors.wake(scope),
        isProcessing: (scope) => this.processors.get(scope) !== undefined,
        freeSlots: () => {
          const held = runSlots.byTenant();
          return {
            total: runSlots.limit - runSlots.running,
            of: (tenantId) => (runSlots.hasFree(tenantId) ? runSlots.tenantLimit - (held.get(tenantId)?.running ?? 0) : 0),
          };
        },
      },
      options,
    );
    this.sweeps.add(sweep);
    return {
      stop: async () => {
        this.sweeps.delete(sweep);
        await sweep.stop();
      },
    };
  }

  /** What the chunk buffers hold, and how many threads this replica is processing (for metrics). */
  stats(): { bufferedMessages: number; bufferedChunks: number; activeThreads: number; runningThreads: number; waitingThreads: number } {
    const { messages, chunks } = this.context.buffers.stats();
    const { runSlots } = this.context;
    return {
      bufferedMessages: messages,
      bufferedChunks: chunks,
      activeThreads: this.processors.size,
      runningThreads: runSlots.running,
      waitingThreads: runSlots.queued,
    };
  }

  /** Threads running and waiting for a run slot on this replica, by tenant (for metrics). */
  tenantRunStats(): Map<string, { running: number; waiting: number }> {
    return this.context.runSlots.byTenant();
  }

  /**
   * Deletes a thread and everything of it: its messages of every status (run records included), its
   * checkpoints, this replica's chunk buffers of its messages, its runs' event logs, and last its record. It holds the
   * thread's run lease meanwhile, which every run on every replica needs, so no run can start or
   * write a checkpoint in between. While a run keeps the lease, it throws {@link ThreadBusyError}.
   */
  async deleteThread(scope: ThreadRunScope): Promise<void> {
    const { queue, checkpointer, buffers, runEvents } = this.context;
    await this.betweenRuns(scope, async () => {
      // Each step is idempotent, and the order makes a failure part-way harmless: with its messages
      // gone first, nothing can run and write checkpoints again; with its record deleted last, the
      // thread is still found, so retrying the delete finishes it.
      await queue.deleteThreadMessages(scope);
      await checkpointer.deleteThread(checkpointThreadId(scope));
      buffers.deleteWithPrefix(threadBufferPrefix(scope));
      await runEvents?.log.deleteThread(scope);
      await this.threads.deleteThread(scope.tenantId, scope.threadId);
    });
  }

  /**
   * Writes `values` into the thread's state as node `asNode` (LangGraph's `updateState`), over its latest checkpoint or the earlier `checkpointId` (a fork); returns the
   * new checkpoint's id. Like {@link deleteThread}, it holds the thread's run lease meanwhile, so no
   * run writes in between; while a run keeps the lease, it throws {@link ThreadBusyError}.
   */
  updateThreadState(scope: ThreadRunScope, write: StateWrite): Promise<string> {
    return this.betweenRuns(scope, (tenure) => writeThreadState(this.context, scope, tenure, write));
  }

  /**
   * Gives thread `to` (new, without checkpoints) the state and checkpoint history of thread `from`.
   * It takes no lease: a run of `from` may go on meanwhile, and what it checkpoints after the copy
   * read its history stays `from`'s.
   */
  copyThreadState(from: CheckpointThreadRef, to: CheckpointThreadRef): Promise<number> {
    return copyCheckpoints(this.context.checkpointer, from, to);
  }

  /** Runs `work` holding the thread's run lease, which every run on every replica needs. */
  private async betweenRuns<T>(scope: ThreadRunScope, work: (tenure: FencedTenure) => Promise<T>): Promise<T> {
    const { leases, threadRunTtlMs, replicaId, logger } = this.context;
    try {
      return await withLease(leases, threadRunLeaseKey(scope), replicaId, work, {
        logger,
        ttlMs: threadRunTtlMs,
        acquireTimeoutMs: DELETE_LEASE_WAIT_MS,
        retryDelayMs: 25,
      });
    } catch (error) {
      if (!(error instanceof LeaseAcquireTimeoutError)) throw error;
      throw new ThreadBusyError(scope, `Thread ${scope.threadId} has a run in progress; abort it first`);
    }
  }

  /**
   * Graceful stop: no new runs; running ones are stopped and their messages handed back to the queue,
   * so a peer continues them from their last checkpoint.
   */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    for (const timer of this.peerWakes) clearTimeout(timer);
    this.peerWakes.clear();
    await Promise.all([...this.sweeps].map((sweep) => sweep.stop()));
    this.sweeps.clear();
    await this.processors.closeAll();
    this.context.runEvents?.waits.close();
  }
}
