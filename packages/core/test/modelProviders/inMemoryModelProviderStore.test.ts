import { modelProviderStoreContract } from "@axiom-lattice/testing";
import { InMemoryModelProviderStore } from "../../src";

modelProviderStoreContract("in-memory", async () => new InMemoryModelProviderStore());
