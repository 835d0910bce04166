import { assistantStoreContract } from "@axiom-lattice/testing";
import { InMemoryAssistantStore } from "../../src";

assistantStoreContract("in-memory", async () => new InMemoryAssistantStore());
