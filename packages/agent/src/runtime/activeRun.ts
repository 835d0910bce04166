/** Why this replica stopped a run before it finished. */
export type StopReason = "aborted" | "lease_lost" | "claim_lost" | "shutdown";
/**
 * Why a message is left unfinished, for a peer (or this replica later) to redo: a stop, the run's task
 * could not be settled (its store failed), or the database was unavailable during the run.
 */
export type HandOverReason = Exclude<StopReason, "aborted"> | "settlement_failed" | "database_unavailable";

/** The run a thread's processor is executing now, and the means to stop it. */
export class ActiveRun {
  private readonly controller = new AbortController();
  private reason: StopReason | undefined;
  private markFinished!: () => void;
  /** Settles when the processor is done with the message (completed, or left for a peer). */
  readonly finished = new Promise<void>((resolve) => {
    this.markFinished = resolve;
  });

  constructor(readonly messageId: string) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  /** Aborts the graph; the first reason wins. */
  stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort(new Error(`Run stopped: ${reason}`));
  }

  finish(): void {
    this.markFinished();
  }
}
