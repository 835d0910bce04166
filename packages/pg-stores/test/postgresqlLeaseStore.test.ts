import { leaseStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLLeaseStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

leaseStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLLeaseStore({ poolConfig: url })));
