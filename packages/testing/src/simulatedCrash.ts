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

/** The part of a LangGraph checkpointer this crash point watches. */
interface CheckpointWriter {
  put(...args: never[]): Promise<unknown>;
  putWrites(config: unknown, writes: Array<[string, unknown]>, taskId: string): Promise<void>;
}

const isAnswer = (value: unknown): boolean =>
  Array.isArray(value) ? value.some(isAnswer) : (value as { getType?: () => string } | null)?.getType?.() === "ai";

/**
 * `checkpointer` throwing `interruption()` in place of the first checkpoint after a model's answer was
 * written: the worst moment for a run to be cut short, its answer stored (as the step's pending write)
 * but not the checkpoint that commits the step. Later checkpoints pass through (a database that failed
 * one write, say, as when the session writing it was terminated).
 */
export function interruptAfterModelAnswer<T extends CheckpointWriter>(checkpointer: T, interruption: () => Error): T {
  // LangGraph may ask for the checkpoint before the step's writes are stored: the interruption waits for them.
  let answerStored: Promise<void> | undefined;
  let interrupted = false;
  return new Proxy(checkpointer, {
    get: (target, property) => {
      if (property === "putWrites") {
        return (...args: Parameters<CheckpointWriter["putWrites"]>) => {
          const stored = target.putWrites(...args);
          if (args[1].some(([channel, value]) => channel === "messages" && isAnswer(value))) answerStored ??= stored;
          return stored;
        };
      }
      if (property === "put") {
        return async (...args: never[]) => {
          if (!answerStored || interrupted) return target.put(...args);
          await answerStored;
          interrupted = true;
          throw interruption();
        };
      }
      return Reflect.get(target, property, target);
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
