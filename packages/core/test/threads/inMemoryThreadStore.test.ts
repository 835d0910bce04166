import { threadStoreContract } from "@axiom-lattice/testing";
import { expect, it } from "vitest";
import { InMemoryThreadStore, getStoreLattice } from "../../src";

threadStoreContract("in-memory", async () => new InMemoryThreadStore());

it("is the default thread store", () => {
  expect(getStoreLattice("default", "thread")).toBeInstanceOf(InMemoryThreadStore);
});
