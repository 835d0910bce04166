import { scheduleStorageContract } from "@axiom-lattice/testing";
import { MemoryScheduleStorage } from "../../src";

scheduleStorageContract("in-memory", async () => new MemoryScheduleStorage());
