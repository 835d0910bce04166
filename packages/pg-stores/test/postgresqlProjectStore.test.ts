import { projectStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLProjectStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

projectStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLProjectStore({ poolConfig: url }), "lattice_projects"));
