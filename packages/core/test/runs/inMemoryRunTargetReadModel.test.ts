import { runTargetReadModelContract } from "@axiom-lattice/testing";
import { InMemoryAssistantStore, InMemoryMessageQueueStore, InMemoryRunTargetReadModel, InMemoryThreadStore } from "../../src";

runTargetReadModelContract("in-memory", {
  async open() {
    const assistants = new InMemoryAssistantStore();
    const threads = new InMemoryThreadStore();
    const readModel = new InMemoryRunTargetReadModel({ assistants, threads });
    return { readModel, assistants, threads, queue: new InMemoryMessageQueueStore({ targets: readModel }) };
  },
});
