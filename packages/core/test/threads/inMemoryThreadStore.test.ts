import { threadStoreContract } from "@axiom-lattice/testing";
import { InMemoryThreadStore } from "../../src";

threadStoreContract("in-memory", async () => new InMemoryThreadStore());
