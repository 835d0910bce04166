import { threadStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLThreadStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

threadStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLThreadStore({ poolConfig: url }), "lattice_threads"));
