import { loggedCompletionContract, runEventLogContract } from "@axiom-lattice/testing";
import { afterAll } from "vitest";
import { PostgreSQLMessageQueueStore } from "../src";
import { PostgreSQLRunEventLog } from "../src/runs/postgresqlRunEventLog";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

runEventLogContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLRunEventLog({ poolConfig: url }), "lattice_run_events"));

let queues: [PostgreSQLMessageQueueStore, PostgreSQLMessageQueueStore] | undefined;
const openLogWithQueues = storeOnTestDatabase((url) => {
  // The queues whose completions log in it, each on a pool of its own over the same database.
  queues = [new PostgreSQLMessageQueueStore({ poolConfig: url }), new PostgreSQLMessageQueueStore({ poolConfig: url })];
  return new PostgreSQLRunEventLog({ poolConfig: url });
}, "lattice_logged_completion");

loggedCompletionContract("PostgreSQL", {
  async open() {
    const runEvents = await openLogWithQueues();
    await Promise.all(queues!.map((queue) => queue.initialize()));
    return { queues: queues!, runEvents };
  },
});

// Registered after storeOnTestDatabase's afterAll, so it runs first (last registered, first run): the queues close before the database goes.
afterAll(() => Promise.all((queues ?? []).map((queue) => queue.dispose())));
