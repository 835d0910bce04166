/**
 * One replica's handles on shared stores, cut off at a chosen moment as SIGKILL would cut them: from
 * `kill()` on, every method called through a wrapped store rejects, so nothing more of this replica
 * reaches the stores. What it wrote before stays; its leases and claims expire on their own.
 */
export class SimulatedCrash {
  private dead = false;

  get killed(): boolean {
    return this.dead;
  }

  kill(): void {
    this.dead = true;
  }

  /** `store` as this replica sees it: calls pass through until the kill, then reject. */
  wrap<T extends object>(store: T): T {
    return new Proxy(store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => (this.dead ? Promise.reject(new Error("replica killed")) : value.apply(target, args));
      },
    });
  }
}

/** The part of a LangGraph checkpointer the crash and pause points watch. */
interface CheckpointWriter {
  put(...args: never[]): Promise<unknown>;
  putWrites(config: unknown, writes: Array<[string, unknown]>, taskId: string): Promise<void>;
}

/** Whether a checkpointer call `property(...args)` stores a model's answer, as a step's pending write. */
function writesAnswer(property: string | symbol, args: unknown[]): boolean {
  return writtenBy(property, args).some(([channel, written]) => channel === "messages" && isAnswer(written));
}

/**
 * The pending writes a checkpointer call stores: a plain saver's `putWrites`, a fencing saver's
 * `putWritesUnderFence`, or the writes a run held back for the checkpoint `putUnderFence` stores.
 */
function writtenBy(property: string | symbol, args: unknown[]): Array<[string, unknown]> {
  if (property === "putWrites") return args[1] as Array<[string, unknown]>;
  if (property === "putWritesUnderFence") return args[2] as Array<[string, unknown]>;
  if (property === "putUnderFence") return ((args[5] as { writes?: Array<{ writes: Array<[string, unknown]> }> } | undefined)?.writes ?? []).flatMap((staged) => staged.writes);
  return [];
}

/** Whether a checkpointer call `property` stores a checkpoint. */
const putsCheckpoint = (property: string | symbol): boolean => property === "put" || property === "putUnderFence";

const isAnswer = (value: unknown): boolean =>
  Array.isArray(value) ? value.some(isAnswer) : (value as { getType?: () => string } | null)?.getType?.() === "ai";

/**
 * `checkpointer` throwing `interruption()` in place of the first checkpoint after a model answered:
 * the worst moment for a run to be cut short. A plain saver's run has stored the answer (as the
 * step's pending write) but not the checkpoint that commits the step; a fenced run stores the two
 * together, so neither is. Later checkpoints pass through (a database that failed one write, say, as
 * when the session writing it was terminated).
 */
export function interruptAfterModelAnswer<T extends CheckpointWriter>(checkpointer: T, interruption: () => Error): T {
  // LangGraph may ask for the checkpoint before the step's writes are stored: the interruption waits for them.
  let answerStored: Promise<void> | undefined;
  let interrupted = false;
  return new Proxy(checkpointer, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const call = value as (...args: unknown[]) => Promise<unknown>;
      if (putsCheckpoint(property)) {
        return async (...args: unknown[]) => {
          if (interrupted) return call.apply(target, args);
          if (writesAnswer(property, args)) {
            interrupted = true;
            throw interruption();
          }
          if (!answerStored) return call.apply(target, args);
          await answerStored;
          interrupted = true;
          throw interruption();
        };
      }
      return (...args: unknown[]) => {
        const result = call.apply(target, args);
        if (writesAnswer(property, args)) answerStored ??= result.then(() => undefined);
        return result;
      };
    },
  });
}

/**
 * `checkpointer` as a replica paused right after its model answered sees it: the writes storing that
 * answer, and every checkpoint from then on, wait for `resumed` (SIGCONT), then go on as they would have.
 */
export function pauseAfterModelAnswer<T extends CheckpointWriter>(checkpointer: T, resumed: Promise<void>): T {
  let answered = false;
  return new Proxy(checkpointer, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const call = value as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => {
        answered ||= writesAnswer(property, args);
        const held = answered && (putsCheckpoint(property) || writesAnswer(property, args));
        return held ? resumed.then(() => call.apply(target, args)) : call.apply(target, args);
      };
    },
  });
}

/** The replica's checkpointer, which kills it after the model's next answer is stored, before the checkpoint. */
export function crashAfterModelAnswer<T extends CheckpointWriter>(checkpointer: T, crash: SimulatedCrash): T {
  return interruptAfterModelAnswer(crash.wrap(checkpointer), () => {
    crash.kill();
    return new Error("replica killed before the checkpoint");
  });
}
