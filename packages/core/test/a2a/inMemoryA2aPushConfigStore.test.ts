import { a2aPushConfigStoreContract } from "@axiom-lattice/testing";
import { InMemoryA2aPushConfigStore } from "../../src";

a2aPushConfigStoreContract("in-memory", async () => new InMemoryA2aPushConfigStore());
