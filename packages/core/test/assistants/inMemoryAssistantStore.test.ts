import { assistantStoreContract } from "@axiom-lattice/testing";
import { expect, it } from "vitest";
import { InMemoryAssistantStore, getStoreLattice } from "../../src";

assistantStoreContract("in-memory", async () => new InMemoryAssistantStore());

it("is the default assistant store", () => {
  expect(getStoreLattice("default", "assistant")).toBeInstanceOf(InMemoryAssistantStore);
});
