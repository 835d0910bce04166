import { registerDefaultStoreFactory } from "@axiom-lattice/core";
import { MemorySaver } from "@langchain/langgraph";

// One process keeps thread state in memory; replicas register a PostgresSaver instead.
registerDefaultStoreFactory("checkpoint", () => new MemorySaver());
