import type { LatticeObserver, Logger } from "@axiom-lattice/core";

/**
 * `observer`, with one info line for each run this replica finishes: a run no request waits on (queued,
 * a LangGraph background run, a schedule's fire) shows in the log when it succeeds too. A failed run is
 * left to the runtime's `run failed` line at warn, which carries its reason: one line per run.
 */
export function loggingRunEnds(observer: LatticeObserver, logger: Logger): LatticeObserver {
  return {
    ...observer,
    runFinished: (event) => {
      observer.runFinished?.(event);
      if (event.status !== "error") logger.info(event, "run finished");
    },
  };
}
