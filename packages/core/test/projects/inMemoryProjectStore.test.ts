import { projectStoreContract } from "@axiom-lattice/testing";
import { InMemoryProjectStore } from "../../src";

projectStoreContract("in-memory", async () => new InMemoryProjectStore());
