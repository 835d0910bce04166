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

/**
 * A checkpoint saver that can write under a lease's fence: refused in the write itself (with
 * `FencedOutError`, nothing written) once the lease has a newer tenure. pg-stores'
 * `PostgreSQLCheckpointSaver` and {@link InMemoryCheckpointSaver} are.
 */
export interface FencingCheckpointSaver extends BaseCheckpointSaver {
  putUnderFence(fence: LeaseFence, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig>;
  putWritesUnderFence(fence: LeaseFence, config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void>;
}

export function isFencingSaver(saver: BaseCheckpointSaver): saver is FencingCheckpointSaver {
  const candidate = saver as Partial<FencingCheckpointSaver>;
  return typeof candidate.putUnderFence === "function" && typeof candidate.putWritesUnderFence === "function";
}

/**
 * The checkpointer of one tenure of a thread's run lease: reads go to the saver as they are; every
 * write is made under the tenure's fence, and a refused one ends the tenure at once.
 */
export class FencedCheckpointer extends BaseCheckpointSaver {
  constructor(
    private readonly saver: FencingCheckpointSaver,
    private readonly tenure: FencedTenure,
    /** Written into the metadata of every checkpoint (a deployed graph's run: its run id, as LangGraph Platform records it). */
    private readonly runMetadata: Record<string, unknown> = {},
  ) {
    super(saver.serde);
  }

  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.saver.getTuple(config);
  }

  list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    return this.saver.list(config, options);
  }

  override getDeltaChannelHistory(options: Parameters<BaseCheckpointSaver["getDeltaChannelHistory"]>[0]): ReturnType<BaseCheckpointSaver["getDeltaChannelHistory"]> {
    return this.saver.getDeltaChannelHistory(options);
  }

  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const stamped = { ...this.runMetadata, ...metadata } as CheckpointMetadata;
    return writeUnderFence(this.tenure, (fence) => this.saver.putUnderFence(fence, config, checkpoint, stamped, newVersions));
  }

  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return writeUnderFence(this.tenure, (fence) => this.saver.putWritesUnderFence(fence, config, writes, taskId));
  }

  /** Not a run's write: a thread is deleted under its own tenure, through the saver itself. */
  deleteThread(): Promise<void> {
    return Promise.reject(new Error("A run's checkpointer deletes no thread"));
  }

  override getNextVersion(current: number | undefined): number {
    return this.saver.getNextVersion(current);
  }
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

/**
 * The config with `saver` lent, unless one is lent already (a fenced one): a subgraph's state methods
 * need one, as its parent graph lends it.
 */
export function lendingCheckpointer<C extends RunnableConfig>(config: C, saver: BaseCheckpointSaver): C {
  if (config.configurable?.[LENT_CHECKPOINTER] !== undefined) return config;
  return { ...config, configurable: { ...config.configurable, [LENT_CHECKPOINTER]: saver } };
}
