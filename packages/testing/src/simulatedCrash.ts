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
 * The worst moment of a run to die: the model's answer is stored (as the step's pending write) but
 * the checkpoint that commits the step is not. Wraps the replica's checkpointer so that the first
 * checkpoint after an answer was written kills the replica instead of being stored.
 */
export function crashAfterModelAnswer<T extends CheckpointWriter>(checkpointer: T, crash: SimulatedCrash): T {
  const cut = crash.wrap(checkpointer);
  // LangGraph may ask for the checkpoint before the step's writes are stored: the kill waits for them.
  let answerStored: Promise<void> | undefined;
  return new Proxy(cut, {
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
          if (!answerStored) return target.put(...args);
          await answerStored;
          crash.kill();
          throw new Error("replica killed before the checkpoint");
        };
      }
      return Reflect.get(target, property, target);
    },
  });
}
