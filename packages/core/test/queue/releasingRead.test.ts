import { releasingReadContract } from "@axiom-lattice/testing";
import { InMemoryLeaseStore, InMemoryMessageQueueStore, createInMemoryStores } from "../../src";

releasingReadContract("in-memory", {
  async open() {
    const leases = new InMemoryLeaseStore();
    return { queue: new InMemoryMessageQueueStore({ leases }), leases };
  },
});

releasingReadContract("in-memory bundle", {
  async open() {
    const { queue, lease } = createInMemoryStores();
    return { queue, leases: lease };
  },
});
