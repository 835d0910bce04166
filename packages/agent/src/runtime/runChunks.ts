import type { FinishedRunStatus } from "@axiom-lattice/core";
import { type MessageChunk, MessageChunkTypes } from "@axiom-lattice/protocols";
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

/** The chunk a stream ends with when this replica stopped a run without finishing it. */
export function stoppedChunk(code: string, error: string): MessageChunk {
  return { type: MessageChunkTypes.ERROR, data: { code, error } };
}
