import { runEventLogContract } from "@axiom-lattice/testing";
import { PostgreSQLRunEventLog } from "../src/runs/postgresqlRunEventLog";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

runEventLogContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLRunEventLog({ poolConfig: url }), "lattice_run_events"));
