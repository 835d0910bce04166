import { scheduleStoreContract } from "@axiom-lattice/testing";
import { InMemoryScheduleStore } from "../../src";

scheduleStoreContract("in-memory", async () => new InMemoryScheduleStore());
