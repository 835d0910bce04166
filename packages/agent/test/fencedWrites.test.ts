import { InMemoryItemStore, InMemoryLeaseStore, InMemoryMessageQueueStore, InMemoryRunEventLog, InMemoryTaskStore } from "@axiom-lattice/core";
import { fencedWritesContract } from "@axiom-lattice/testing";
import { InMemoryCheckpointSaver } from "../src";

// The in-memory stores judge fences by the in-memory lease store; one process has one of each.
fencedWritesContract("in-memory", {
  open: async (count) => {
    const leases = new InMemoryLeaseStore();
    const fences = { fences: leases };
    const stores = {
      leases,
      queue: new InMemoryMessageQueueStore(fences),
      runEvents: new InMemoryRunEventLog(fences),
      items: new InMemoryItemStore(fences),
      tasks: new InMemoryTaskStore(fences),
      checkpoints: new InMemoryCheckpointSaver(leases),
    };
    return Array.from({ length: count }, () => stores);
  },
});
