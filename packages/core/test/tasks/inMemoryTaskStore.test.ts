import { taskStoreContract } from "@axiom-lattice/testing";
import { InMemoryTaskStore } from "../../src";

taskStoreContract("in-memory", async () => new InMemoryTaskStore());
