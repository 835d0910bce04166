import { langGraphReadModelContract } from "@axiom-lattice/testing";
import { InMemoryLangGraphReadModel, InMemoryMessageQueueStore, InMemoryThreadStore } from "../../src";

langGraphReadModelContract("in-memory", {
  async open() {
    const threads = new InMemoryThreadStore();
    const queue = new InMemoryMessageQueueStore();
    return { readModel: new InMemoryLangGraphReadModel({ threads, queue }), threads, queue };
  },
});
