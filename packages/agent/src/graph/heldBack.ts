import type { RunnableConfig } from "@langchain/core/runnables";
import type { ChannelVersions, Checkpoint, CheckpointMetadata, PendingWrite } from "@langchain/langgraph-checkpoint";

/** A task's pending writes (`putWrites`' arguments), held back by a run to be stored with the next checkpoint it stores. */
export interface StagedWrites {
  config: RunnableConfig;
  writes: PendingWrite[];
  taskId: string;
}

/** A checkpoint (`put`'s arguments) held back by a run to be stored with the next one. */
export interface StagedCheckpoint {
  config: RunnableConfig;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
}

/** What a run stores with a checkpoint, in the same statement: checkpoints before it (its input's), and pending writes. */
export interface HeldBack {
  checkpoints?: readonly StagedCheckpoint[];
  writes?: readonly StagedWrites[];
}
