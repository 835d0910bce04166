import { replicaPresenceStoreContract } from "@axiom-lattice/testing";
import { InMemoryReplicaPresenceStore } from "../src";

replicaPresenceStoreContract("in-memory", async () => new InMemoryReplicaPresenceStore());
