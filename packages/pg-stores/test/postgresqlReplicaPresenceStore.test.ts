import { replicaPresenceStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLReplicaPresenceStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

replicaPresenceStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLReplicaPresenceStore({ poolConfig: url })));
