import { isDatabaseUnavailable } from "@axiom-lattice/core";
import { UpstreamError } from "../models/upstreamErrors";

/** LangGraph and the stores wrap errors a few times at most. */
const MAX_DEPTH = 5;

function causedByModelApi(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth <= MAX_DEPTH; cause = cause.cause, depth++) {
    if (cause instanceof UpstreamError) return true;
  }
  return false;
}

/**
 * Whether a run was cut short because the database was unavailable (its checkpoints, its assistant,
 * its queue or its task could not be read or written), not by its model, its tools or its input: such
 * a run is put back and run again from its checkpoint, never failed. The model API's failures are told
 * apart first: an `UpstreamError` keeps the socket error that caused it (`ECONNREFUSED`…) as its cause,
 * which alone would read as the database's. (A tool's failure never gets here: the graph hands it to
 * the model as the tool's result.)
 */
export function isDatabaseOutage(error: unknown): boolean {
  return !causedByModelApi(error) && isDatabaseUnavailable(error);
}
