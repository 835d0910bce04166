import type { FinishedRunStatus } from "@axiom-lattice/core";
import { type MessageChunk, MessageChunkTypes, type RunHandedOverData, type RunResumedData } from "@axiom-lattice/protocols";
import type { PendingInterrupt } from "../graph/pendingInterrupts";
import { runFailureCode } from "./runFailure";

export interface RunOutcomeDetails {
  status: FinishedRunStatus;
  error?: string;
  interrupts?: PendingInterrupt[];
}

/** The chunk that ends a message's stream, by the run's outcome. */
export function terminalChunk({ status, error, interrupts = [] }: RunOutcomeDetails): MessageChunk {
  switch (status) {
    case "success":
      return { type: MessageChunkTypes.MESSAGE_COMPLETED, data: { status } };
    case "interrupted":
      return { type: MessageChunkTypes.INTERRUPT, data: { status, value: interrupts[0]?.value, interrupts } };
    default: {
      const code = runFailureCode(error);
      return { type: MessageChunkTypes.MESSAGE_FAILED, data: code ? { status, error, code } : { status, error } };
    }
  }
}

/** Marks where a replica stopped running a message without ending it: the stream goes on where it runs next. */
export function handedOverChunk(data: RunHandedOverData): MessageChunk<RunHandedOverData> {
  return { type: MessageChunkTypes.RUN_HANDED_OVER, data };
}

/** The first event of a re-run of a message, on `replica`. */
export function resumedChunk(replica: string, attempt: number): MessageChunk<RunResumedData> {
  return { type: MessageChunkTypes.RUN_RESUMED, data: { replica, attempt } };
}
