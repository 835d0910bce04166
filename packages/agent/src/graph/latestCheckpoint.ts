import type { RunnableConfig } from "@langchain/core/runnables";
import { type Checkpoint, type CheckpointMetadata, type CheckpointTuple, type PendingWrite, copyCheckpoint } from "@langchain/langgraph-checkpoint";
import type { StagedWrites } from "./heldBack";

/**
 * A thread's latest checkpoint as one tenure of its run lease last read or wrote it, so that the
 * tenure reads it from the database once. While the tenure holds the lease nobody else writes the
 * thread's checkpoints (an older tenure's writes are fenced out, a newer one ends this one), so what
 * the tenure itself stored is what the database holds.
 *
 * A write in flight leaves it unknown until the write succeeds (a failed write may have committed or
 * not); a read that overlapped a write is not kept.
 */
export class LatestCheckpoint {
  private known?: { place: string; tuple: CheckpointTuple | undefined; writes: CheckpointTuple["pendingWrites"] & {} };
  private writesStarted = 0;
  private writesInFlight = 0;

  /** The latest checkpoint of the thread and namespace `config` names, when known; `config` naming a checkpoint asks for that one, never known here. */
  lookUp(config: RunnableConfig): { tuple: CheckpointTuple | undefined } | undefined {
    const place = latestPlace(config);
    if (place === undefined || this.known?.place !== place) return undefined;
    const { tuple, writes } = this.known;
    // A copy: reading a state may apply writes to the checkpoint it was given.
    return { tuple: tuple && { ...tuple, checkpoint: copyCheckpoint(tuple.checkpoint), pendingWrites: [...writes] } };
  }

  /** Reads through `read`, keeping what it answered when it asked for the latest and no write overlapped it. */
  async read(config: RunnableConfig, read: () => Promise<CheckpointTuple | undefined>): Promise<CheckpointTuple | undefined> {
    const place = latestPlace(config);
    const startedBefore = this.writesStarted;
    const tuple = await read();
    if (place !== undefined && this.writesInFlight === 0 && this.writesStarted === startedBefore) this.remember(place, tuple);
    return tuple;
  }

  /**
   * Makes a checkpoint write through `write`: once it succeeded, `checkpoint` is the latest of its
   * place, with those of the pending writes stored with it that belong to it (LangGraph asks for a
   * checkpoint once the one before is stored, by which time its first tasks may have written).
   */
  async wrotePut(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    staged: readonly StagedWrites[],
    write: () => Promise<RunnableConfig>,
  ): Promise<RunnableConfig> {
    const saved = await this.writing(write);
    if (this.writesInFlight > 0) return saved;
    const { thread_id, checkpoint_ns = "", checkpoint_id: parent } = placeOf(config);
    this.remember(placeKey(config), {
      config: saved,
      checkpoint,
      metadata,
      ...(parent === undefined ? {} : { parentConfig: { configurable: { thread_id, checkpoint_ns, checkpoint_id: parent } } }),
      pendingWrites: staged
        .filter((each) => placeKey(each.config) === placeKey(config) && placeOf(each.config).checkpoint_id === checkpoint.id)
        .flatMap(({ writes, taskId }) => writes.map(([channel, value]): [string, string, unknown] => [taskId, channel, value])),
    });
    return saved;
  }

  /** Makes a task's pending writes through `write`: once they succeeded, the latest checkpoint, if they belong to it, has them. */
  async wroteWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, write: () => Promise<void>): Promise<void> {
    const before = this.known;
    await this.writing(write);
    if (before === undefined || this.known !== undefined || this.writesInFlight > 0) return;
    if (before.place !== placeKey(config) || before.tuple?.checkpoint.id !== placeOf(config).checkpoint_id) {
      this.known = before;
      return;
    }
    // A task writing again replaces or keeps what it wrote by the savers' rules: left to a read.
    if (before.writes.some(([writer]) => writer === taskId)) return;
    this.known = { ...before, writes: [...before.writes, ...writes.map(([channel, value]): [string, string, unknown] => [taskId, channel, value])] };
  }

  private async writing<T>(write: () => Promise<T>): Promise<T> {
    this.known = undefined;
    this.writesStarted++;
    this.writesInFlight++;
    try {
      return await write();
    } finally {
      this.writesInFlight--;
    }
  }

  private remember(place: string, tuple: CheckpointTuple | undefined): void {
    // Kept apart from what its reader or writer goes on to do with it.
    this.known = { place, tuple: tuple && { ...tuple, checkpoint: copyCheckpoint(tuple.checkpoint) }, writes: [...(tuple?.pendingWrites ?? [])] };
  }
}

function placeOf(config: RunnableConfig): { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string } {
  return (config.configurable ?? {}) as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
}

/** The thread and namespace `config` names, as one key. */
function placeKey(config: RunnableConfig): string {
  const { thread_id, checkpoint_ns = "" } = placeOf(config);
  return `${thread_id}\u0000${checkpoint_ns}`;
}

/** Where `config` asks for the latest checkpoint (its place key); undefined when it names one. */
function latestPlace(config: RunnableConfig): string | undefined {
  const { thread_id, checkpoint_id } = placeOf(config);
  return thread_id === undefined || checkpoint_id !== undefined ? undefined : placeKey(config);
}
