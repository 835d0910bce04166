import { mcpServerConfigStoreContract } from "@axiom-lattice/testing";
import { InMemoryMcpServerConfigStore } from "../../src";

mcpServerConfigStoreContract("in-memory", async () => new InMemoryMcpServerConfigStore());
