import { type FencedTenure, writeUnderFence } from "@axiom-lattice/core";
import type { LeaseFence } from "@axiom-lattice/protocols";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { LatestCheckpoint } from "./latestCheckpoint";
import type { HeldBack, StagedCheckpoint, StagedWrites } from "./heldBack";

/**
 * A checkpoint saver that can write under a lease's fence: refused in the write itself (with
 * `FencedOutError`, nothing written) once the lease has a newer tenure. pg-stores'
 * `PostgreSQLCheckpointSaver` and {@link InMemoryCheckpointSaver} are.
 */
export interface FencingCheckpointSaver extends BaseCheckpointSaver {
  /** Stores the checkpoint with what the run `held` back for it (checkpoints before it, pending writes), all or nothing. */
  putUnderFence(
    fence: LeaseFence,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    held?: HeldBack,
  ): Promise<RunnableConfig>;
  putWritesUnderFence(fence: LeaseFence, config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void>;
}

export function isFencingSaver(saver: BaseCheckpointSaver): saver is FencingCheckpointSaver {
  const candidate = saver as Partial<FencingCheckpointSaver>;
  return typeof candidate.putUnderFence === "function" && typeof candidate.putWritesUnderFence === "function";
}

/**
 * The checkpointer of one tenure of a thread's run lease: every write is made under the tenure's
 * fence, and a refused one ends the tenure at once.
 *
 * A task's pending writes are held back and stored with the next checkpoint the run stores, in one
 * transaction: a step costs one write, not one per task plus one. LangGraph asks for that checkpoint
 * as soon as the step's last task finished, so a write waits in memory no longer than the step's
 * slowest task; a replica that dies meanwhile loses that step's work, which the run's next attempt
 * does again, as it would for a task that had not finished. The checkpoint of a run's input is held
 * back as well, for its first step's. What no checkpoint follows (an interrupt's writes, a failed
 * task's) is stored before any read, and by {@link flush}, which the run calls when its graph stops.
 *
 * The thread's latest checkpoint is read from the database once a tenure: after that, what the
 * tenure last read or wrote is what the database holds (see {@link LatestCheckpoint}). A run reads it
 * three times (to plan its input, as its graph starts, and for the state it left).
 */
export class FencedCheckpointer extends BaseCheckpointSaver {
  private staged: StagedWrites[] = [];
  private heldCheckpoint: StagedCheckpoint | undefined;
  private readonly latest: LatestCheckpoint;

  constructor(
    private readonly saver: FencingCheckpointSaver,
    private readonly tenure: FencedTenure,
    /** Written into the metadata of every checkpoint (a deployed graph's run: its run id, as LangGraph Platform records it). */
    private readonly runMetadata: Record<string, unknown> = {},
  ) {
    super(saver.serde);
    this.latest = latestOfTenure(tenure);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.flush();
    const known = this.latest.lookUp(config);
    return known ? known.tuple : this.latest.read(config, () => this.saver.getTuple(config));
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.flush();
    yield* this.saver.list(config, options);
  }

  override async getDeltaChannelHistory(options: Parameters<BaseCheckpointSaver["getDeltaChannelHistory"]>[0]): ReturnType<BaseCheckpointSaver["getDeltaChannelHistory"]> {
    await this.flush();
    return this.saver.getDeltaChannelHistory(options);
  }

  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const put = { config, checkpoint, metadata: { ...this.runMetadata, ...metadata } as CheckpointMetadata, newVersions };
    if (metadata.source === "input" && this.heldCheckpoint === undefined) {
      // The run's input: stored with the first step's checkpoint, which follows at once. Should the
      // replica die before, the message is still queued, and its next attempt adds it again.
      this.heldCheckpoint = put;
      const { thread_id, checkpoint_ns = "" } = config.configurable ?? {};
      return Promise.resolve({ configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } });
    }
    return this.store(put);
  }

  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    this.staged.push({ config, writes, taskId });
    return Promise.resolve();
  }

  /** Stores what is held back: a checkpoint, and writes no checkpoint followed. */
  async flush(): Promise<void> {
    const held = this.heldCheckpoint;
    if (held) {
      this.heldCheckpoint = undefined;
      await this.store(held);
    }
    for (const { config, writes, taskId } of this.takeStaged()) {
      await this.latest.wroteWrites(config, writes, taskId, () => writeUnderFence(this.tenure, (fence) => this.saver.putWritesUnderFence(fence, config, writes, taskId)));
    }
  }

  /** Stores `put`, with the checkpoint held back before it and the writes that belong to either. */
  private store({ config, checkpoint, metadata, newVersions }: StagedCheckpoint): Promise<RunnableConfig> {
    const checkpoints = this.heldCheckpoint ? [this.heldCheckpoint] : [];
    this.heldCheckpoint = undefined;
    // LangGraph asks for checkpoints one after another, and a later step's tasks may finish while an
    // earlier checkpoint is being stored: their writes wait for their own checkpoint (ids order
    // checkpoints in time), so a write never lands before the checkpoint it belongs to.
    const writes = this.takeStaged((write) => (write.config.configurable?.checkpoint_id ?? "") <= checkpoint.id);
    return this.latest.wrotePut(config, checkpoint, metadata, writes, () =>
      writeUnderFence(this.tenure, (fence) => this.saver.putUnderFence(fence, config, checkpoint, metadata, newVersions, { checkpoints, writes })),
    );
  }

  private takeStaged(taken: (write: StagedWrites) => boolean = () => true): StagedWrites[] {
    const staged = this.staged.filter(taken);
    this.staged = this.staged.filter((write) => !taken(write));
    return staged;
  }

  /** Not a run's write: a thread is deleted under its own tenure, through the saver itself. */
  deleteThread(): Promise<void> {
    return Promise.reject(new Error("A run's checkpointer deletes no thread"));
  }

  override getNextVersion(current: number | undefined): number {
    return this.saver.getNextVersion(current);
  }
}

// Every run of a tenure shares what it knows of the thread's latest checkpoint.
const latestByTenure = new WeakMap<FencedTenure, LatestCheckpoint>();

function latestOfTenure(tenure: FencedTenure): LatestCheckpoint {
  let latest = latestByTenure.get(tenure);
  if (!latest) latestByTenure.set(tenure, (latest = new LatestCheckpoint()));
  return latest;
}

// How a run gets a checkpointer of its own: LangGraph resolves a run's checkpointer (and that of its
// state methods) from this config key before the compiled graph's own, the way a parent graph lends
// its checkpointer to a subgraph. Graphs are compiled once and shared by every run, so the run's
// tenure cannot be compiled in.
const LENT_CHECKPOINTER = "__pregel_checkpointer";

/**
 * The config of a run made under `tenure`: its graph writes checkpoints through a
 * {@link FencedCheckpointer}. A saver that cannot fence its writes (one a library user passed) is left
 * as it is: its writes are not fenced.
 */
export function withFencedCheckpoints<C extends RunnableConfig>(config: C, saver: BaseCheckpointSaver, tenure: FencedTenure, runMetadata?: Record<string, unknown>): C {
  if (!isFencingSaver(saver)) return config;
  return { ...config, configurable: { ...config.configurable, [LENT_CHECKPOINTER]: new FencedCheckpointer(saver, tenure, runMetadata) } };
}

/** Stores the writes a run's fenced checkpointer (if `config` lends one) holds back: see {@link FencedCheckpointer}. */
export async function flushCheckpointWrites(config: RunnableConfig): Promise<void> {
  const lent: unknown = config.configurable?.[LENT_CHECKPOINTER];
  if (lent instanceof FencedCheckpointer) await lent.flush();
}

/**
 * The config with `saver` lent, unless one is lent already (a fenced one): a subgraph's state methods
 * need one, as its parent graph lends it.
 */
export function lendingCheckpointer<C extends RunnableConfig>(config: C, saver: BaseCheckpointSaver): C {
  if (config.configurable?.[LENT_CHECKPOINTER] !== undefined) return config;
  return { ...config, configurable: { ...config.configurable, [LENT_CHECKPOINTER]: saver } };
}
