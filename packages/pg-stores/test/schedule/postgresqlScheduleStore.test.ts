import { scheduleStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLScheduleStore } from "../../src";
import { storeOnTestDatabase } from "../support/storeOnTestDatabase";

scheduleStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLScheduleStore({ poolConfig: url })));
