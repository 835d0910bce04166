import type { LeaseFence } from "@axiom-lattice/protocols";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type ChannelVersions, type Checkpoint, type CheckpointMetadata, type PendingWrite, WRITES_IDX_MAP } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { Pool } from "pg";
import { assertHeld } from "../coordination/fenceSql";
import { PUT_CHECKPOINT, PUT_WRITES } from "./checkpointSql";

/**
 * LangGraph's PostgreSQL checkpointer, as the replicas run it: with channel versions that never
 * repeat on a thread, and with writes a run makes under its thread-run lease's fence.
 *
 * Versions. The saver stores each channel's value once per (thread, channel, version); its versions
 * count 1, 2, 3…, so a run from an earlier checkpoint (a fork) writes versions the abandoned branch
 * already wrote, and reads that branch's values back. A random fraction on each version (as
 * LangGraph's Python savers add one) keeps a fork's versions its own. Versions stay numbers, ordered
 * as before: threads checkpointed with whole numbers go on unchanged.
 *
 * Fenced writes. {@link putUnderFence} and {@link putWritesUnderFence} store what `put` and
 * `putWrites` store, in the same rows, but in one statement that writes nothing once the fence's lease
 * has a newer tenure: a paused replica's checkpoint never lands after its successor's.
 */
export class PostgreSQLCheckpointSaver extends PostgresSaver {
  constructor(private readonly writePool: Pool) {
    super(writePool);
  }

  override getNextVersion(current: number | undefined): number {
    const whole = current === undefined ? 0 : Math.floor(current);
    return whole + 1 + Math.random() / 2;
  }

  /** `put`, refused with `FencedOutError` (nothing written) once `fence` is not its lease's latest tenure. */
  async putUnderFence(fence: LeaseFence, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const { thread_id, checkpoint_ns = "", checkpoint_id } = requireConfigurable(config);
    const [blobs, storedMetadata] = await Promise.all([this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions), this._dumpMetadata(metadata)]);
    const { rows } = await this.writePool.query<{ fence_holds: boolean }>(PUT_CHECKPOINT, [
      thread_id,
      checkpoint_ns,
      blobs.map((blob) => blob[2]),
      blobs.map((blob) => blob[3]),
      blobs.map((blob) => blob[4]),
      blobs.map((blob) => blob[5] ?? null),
      checkpoint.id,
      checkpoint_id ?? null,
      this._dumpCheckpoint(checkpoint),
      storedMetadata,
      fence.key,
      fence.token,
    ]);
    assertHeld(rows[0].fence_holds, fence);
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** `putWrites`, refused with `FencedOutError` (nothing written) once `fence` is not its lease's latest tenure. */
  async putWritesUnderFence(fence: LeaseFence, config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const { thread_id, checkpoint_ns = "", checkpoint_id } = requireConfigurable(config);
    if (checkpoint_id === undefined) throw new Error("Pending writes belong to a checkpoint: the config names none");
    const stored = await this._dumpWrites(thread_id, checkpoint_ns, checkpoint_id, taskId, writes);
    const { rows } = await this.writePool.query<{ fence_holds: boolean }>(PUT_WRITES, [
      thread_id,
      checkpoint_ns,
      checkpoint_id,
      taskId,
      stored.map((write) => write[4]),
      stored.map((write) => write[5]),
      stored.map((write) => write[6]),
      stored.map((write) => write[7]),
      writes.every(([channel]) => channel in WRITES_IDX_MAP),
      fence.key,
      fence.token,
    ]);
    assertHeld(rows[0].fence_holds, fence);
  }
}

function requireConfigurable(config: RunnableConfig): { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string } {
  if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
  return config.configurable as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
}
