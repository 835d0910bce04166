import { threadStoreContract } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLThreadStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

let url = "";
let peers: PostgreSQLThreadStore[] = [];

threadStoreContract(
  "PostgreSQL",
  storeOnTestDatabase((databaseUrl) => {
    url = databaseUrl;
    return new PostgreSQLThreadStore({ poolConfig: databaseUrl });
  }, "lattice_threads"),
  // Each on a pool of its own: racing claims come from separate connections, as from replicas.
  async (count) => {
    peers = Array.from({ length: count }, () => new PostgreSQLThreadStore({ poolConfig: { connectionString: url, max: 2 } }));
    await Promise.all(peers.map((peer) => peer.initialize()));
    return peers;
  },
);

// After the contract's own afterAll (hooks run last registered first): the peers close before the database goes.
afterAll(() => Promise.all(peers.map((peer) => peer.dispose())));
