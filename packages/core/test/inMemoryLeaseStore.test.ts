import { leaseStoreContract } from "@axiom-lattice/testing";
import { InMemoryLeaseStore } from "../src";

leaseStoreContract("in-memory", async () => new InMemoryLeaseStore());
