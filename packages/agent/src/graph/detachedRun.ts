import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

/**
 * Calls `start` outside any running graph. LangGraph keeps a running graph's config in async-local
 * storage, which every promise started from it inherits: a thread's run started from inside another
 * run (a delegated task started by the `task` tool) would otherwise run as a subgraph of the caller,
 * checkpointing into the caller's thread.
 */
export function detachedFromRunningGraph<T>(start: () => T): T {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, start);
}
