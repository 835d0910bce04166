import { runTargetReadModelContract } from "@axiom-lattice/testing";
import { InMemoryAssistantStore, InMemoryRunTargetReadModel, InMemoryThreadStore } from "../../src";

runTargetReadModelContract("in-memory", {
  async open() {
    const assistants = new InMemoryAssistantStore();
    const threads = new InMemoryThreadStore();
    return { readModel: new InMemoryRunTargetReadModel({ assistants, threads }), assistants, threads };
  },
});
