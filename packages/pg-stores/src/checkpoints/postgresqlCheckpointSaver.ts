import type { LeaseFence } from "@axiom-lattice/protocols";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type ChannelVersions, type Checkpoint, type CheckpointMetadata, type PendingWrite, WRITES_IDX_MAP } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { Pool } from "pg";
import { assertHeld } from "../coordination/fenceSql";
import { PUT_CHECKPOINTS } from "./checkpointSql";

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

  /**
   * `put`, with what the run `held` back for it (the checkpoints before it, its input's; the pending
   * writes of the tasks whose steps they record, which `putWrites` would have stored one transaction
   * each), in one statement; refused with `FencedOutError` (nothing written) once `fence` is not its
   * lease's latest tenure.
   */
  async putUnderFence(
    fence: LeaseFence,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    held: HeldBack = {},
  ): Promise<RunnableConfig> {
    const { thread_id, checkpoint_ns = "" } = requireConfigurable(config);
    await this.storeUnderFence(fence, thread_id, [...(held.checkpoints ?? []), { config, checkpoint, metadata, newVersions }], held.writes ?? []);
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** `putWrites`, refused with `FencedOutError` (nothing written) once `fence` is not its lease's latest tenure. */
  async putWritesUnderFence(fence: LeaseFence, config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    await this.storeUnderFence(fence, requireConfigurable(config).thread_id, [], [{ config, writes, taskId }]);
  }

  /** Checkpoints of thread `threadId` and pending writes, in one statement under `fence` ({@link PUT_CHECKPOINTS}). */
  private async storeUnderFence(fence: LeaseFence, threadId: string, puts: readonly HeldCheckpoint[], staged: readonly StagedWrites[]): Promise<void> {
    const [saved, writes] = await Promise.all([Promise.all(puts.map((put) => this.dumpPut(threadId, put))), this.dumpStaged(threadId, staged)]);
    const blobs = saved.flatMap((put) => put.blobs);
    const { rows } = await this.writePool.query<{ fence_holds: boolean }>(PUT_CHECKPOINTS, [
      threadId,
      blobs.map((blob) => blob[1]),
      blobs.map((blob) => blob[2]),
      blobs.map((blob) => blob[3]),
      blobs.map((blob) => blob[4]),
      blobs.map((blob) => blob[5] ?? null),
      saved.map((put) => put.ns),
      saved.map((put) => put.id),
      saved.map((put) => put.parentId),
      saved.map((put) => JSON.stringify(put.checkpoint)),
      saved.map((put) => JSON.stringify(put.metadata)),
      fence.key,
      fence.token,
      writes.map((write) => write.row[1]),
      writes.map((write) => write.row[2]),
      writes.map((write) => write.row[3]),
      writes.map((write) => write.row[4]),
      writes.map((write) => write.row[5]),
      writes.map((write) => write.row[6]),
      writes.map((write) => write.row[7]),
      writes.map((write) => write.replaces),
    ]);
    assertHeld(rows[0].fence_holds, fence);
  }

  /** A checkpoint's rows as the library stores them: its channels' blobs, and the checkpoint (without its values) with its metadata. */
  private async dumpPut(threadId: string, { config, checkpoint, metadata, newVersions }: HeldCheckpoint) {
    const { checkpoint_ns = "", checkpoint_id } = requireConfigurable(config);
    const [blobs, storedMetadata] = await Promise.all([this._dumpBlobs(threadId, checkpoint_ns, checkpoint.channel_values, newVersions), this._dumpMetadata(metadata)]);
    return { ns: checkpoint_ns, id: checkpoint.id, parentId: checkpoint_id ?? null, blobs, checkpoint: this._dumpCheckpoint(checkpoint), metadata: storedMetadata };
  }

  /**
   * The rows of staged writes, each key once, as the library's calls in turn would have left it: a
   * later call that replaces (writes to special channels alone) wins; one that keeps leaves the first.
   */
  private async dumpStaged(threadId: string, staged: readonly StagedWrites[]): Promise<Array<{ row: DumpedWrite; replaces: boolean }>> {
    const byKey = new Map<string, { row: DumpedWrite; replaces: boolean }>();
    for (const { config, writes, taskId } of staged) {
      const { checkpoint_ns = "", checkpoint_id } = requireConfigurable(config);
      if (checkpoint_id === undefined) throw new Error("Pending writes belong to a checkpoint: the config names none");
      const replaces = replacesStored(writes);
      for (const row of await this._dumpWrites(threadId, checkpoint_ns, checkpoint_id, taskId, writes)) {
        const key = JSON.stringify(row.slice(1, 5));
        if (replaces || !byKey.has(key)) byKey.set(key, { row, replaces });
      }
    }
    return [...byKey.values()];
  }
}

/** A task's pending writes held back by a run, to be stored with the next checkpoint it stores. */
interface StagedWrites {
  config: RunnableConfig;
  writes: PendingWrite[];
  taskId: string;
}

/** A checkpoint held back by a run (its input's), to be stored with the next. */
interface HeldCheckpoint {
  config: RunnableConfig;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
}

/** What a run stores with a checkpoint, in the same statement. */
interface HeldBack {
  checkpoints?: readonly HeldCheckpoint[];
  writes?: readonly StagedWrites[];
}

/** A write as the library stores it: thread, namespace, checkpoint, task, index, channel, type, bytes. */
type DumpedWrite = [string, string, string, string, number, string, string, Uint8Array];

/** Whether writes replace those stored under the same keys: the library's rule, writes to special channels alone. */
const replacesStored = (writes: PendingWrite[]): boolean => writes.every(([channel]) => channel in WRITES_IDX_MAP);

function requireConfigurable(config: RunnableConfig): { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string } {
  if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
  return config.configurable as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
}
