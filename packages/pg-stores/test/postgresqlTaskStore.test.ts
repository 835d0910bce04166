import { taskStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLTaskStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

taskStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLTaskStore({ poolConfig: url }), "lattice_tasks"));
