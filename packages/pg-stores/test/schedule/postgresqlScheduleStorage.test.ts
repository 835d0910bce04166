import { scheduleStorageContract } from "@axiom-lattice/testing";
import { PostgreSQLScheduleStorage } from "../../src";
import { storeOnTestDatabase } from "../support/storeOnTestDatabase";

scheduleStorageContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLScheduleStorage({ poolConfig: url })));
