import { assistantStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLAssistantStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

assistantStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLAssistantStore({ poolConfig: url }), "lattice_assistants"));
