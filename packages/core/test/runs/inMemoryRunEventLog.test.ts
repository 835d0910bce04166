import { loggedCompletionContract, runEventLogContract } from "@axiom-lattice/testing";
import { InMemoryMessageQueueStore, InMemoryRunEventLog } from "../../src";

runEventLogContract("in-memory", async () => new InMemoryRunEventLog());

loggedCompletionContract("in-memory", {
  async open() {
    const runEvents = new InMemoryRunEventLog();
    const queue = new InMemoryMessageQueueStore({ runEvents });
    return { queues: [queue, queue], runEvents };
  },
});
