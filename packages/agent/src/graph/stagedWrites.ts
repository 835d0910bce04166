import type { RunnableConfig } from "@langchain/core/runnables";
import type { PendingWrite } from "@langchain/langgraph-checkpoint";

/** A task's pending writes (`putWrites`' arguments), held back by a run to be stored with the next checkpoint it stores. */
export interface StagedWrites {
  config: RunnableConfig;
  writes: PendingWrite[];
  taskId: string;
}
