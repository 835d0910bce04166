import type { FenceCheck } from "@axiom-lattice/core";
import type { LeaseFence } from "@axiom-lattice/protocols";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type ChannelVersions, type Checkpoint, type CheckpointMetadata, MemorySaver, type PendingWrite } from "@langchain/langgraph-checkpoint";
import type { FencingCheckpointSaver } from "./fencedCheckpointer";
import type { HeldBack } from "./heldBack";

/**
 * LangGraph's in-memory checkpointer, with the fenced writes of {@link FencingCheckpointSaver}
 * judged by the in-memory lease store: the checkpointer of a gateway with no database.
 */
export class InMemoryCheckpointSaver extends MemorySaver implements FencingCheckpointSaver {
  constructor(private readonly fences: FenceCheck) {
    super();
  }

  async putUnderFence(
    fence: LeaseFence,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _newVersions: ChannelVersions,
    { checkpoints = [], writes = [] }: HeldBack = {},
  ): Promise<RunnableConfig> {
    // The saver awaits before it stores: the tenure is held the latest until then.
    const release = this.fences.hold(fence);
    try {
      for (const earlier of checkpoints) await this.put(earlier.config, earlier.checkpoint, earlier.metadata);
      for (const { config: at, writes: written, taskId } of writes) await this.putWrites(at, written, taskId);
      return await this.put(config, checkpoint, metadata);
    } finally {
      release();
    }
  }

  async putWritesUnderFence(fence: LeaseFence, config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const release = this.fences.hold(fence);
    try {
      await this.putWrites(config, writes, taskId);
    } finally {
      release();
    }
  }
}
