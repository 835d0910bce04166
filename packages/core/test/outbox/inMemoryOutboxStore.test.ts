import { outboxStoreContract } from "@axiom-lattice/testing";
import { InMemoryOutboxStore } from "../../src";

let offset = 0;

outboxStoreContract("in-memory", {
  makeStore: async () => new InMemoryOutboxStore({ now: () => Date.now() + offset }),
  // Moving the store's clock forward ages every event already written.
  ageEvents: async (ms) => {
    offset += ms;
  },
});
