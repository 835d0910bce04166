import { taskStoreContract } from "@axiom-lattice/testing";
import { expect, it } from "vitest";
import { InMemoryTaskStore, getStoreLattice } from "../../src";

taskStoreContract("in-memory", async () => new InMemoryTaskStore());

it("is the default task store", () => {
  expect(getStoreLattice("default", "task")).toBeInstanceOf(InMemoryTaskStore);
});
