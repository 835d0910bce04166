import { runEventLogContract } from "@axiom-lattice/testing";
import { InMemoryRunEventLog } from "../../src";

runEventLogContract("in-memory", async () => new InMemoryRunEventLog());
