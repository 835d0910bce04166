import { projectStoreContract } from "@axiom-lattice/testing";
import { expect, it } from "vitest";
import { InMemoryProjectStore, getStoreLattice } from "../../src";

projectStoreContract("in-memory", async () => new InMemoryProjectStore());

it("is the default project store", () => {
  expect(getStoreLattice("default", "project")).toBeInstanceOf(InMemoryProjectStore);
});
