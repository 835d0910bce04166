import { mcpServerConfigStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLMcpServerConfigStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

mcpServerConfigStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLMcpServerConfigStore({ poolConfig: url }), "lattice_mcp_server_configs"));
