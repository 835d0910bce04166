import { itemStoreContract } from "@axiom-lattice/testing";
import { InMemoryItemStore } from "../../src";

let offsetMs = 0;
const store = new InMemoryItemStore({ now: () => Date.now() + offsetMs });

itemStoreContract("in-memory", {
  // One process has one store: every "replica" is it.
  makeStores: async (count) => Array.from({ length: count }, () => store),
  // Moving the store's clock forward ages every item already written.
  age: async (ms) => {
    offsetMs += ms;
  },
});
