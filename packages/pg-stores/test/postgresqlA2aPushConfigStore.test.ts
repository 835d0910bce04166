import { a2aPushConfigStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLA2aPushConfigStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

a2aPushConfigStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLA2aPushConfigStore({ poolConfig: url }), "lattice_a2a_push_configs"));
