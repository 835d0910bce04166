import { pluginSettingStoreContract } from "@axiom-lattice/testing";
import { PostgreSQLPluginSettingStore } from "../src";
import { storeOnTestDatabase } from "./support/storeOnTestDatabase";

pluginSettingStoreContract("PostgreSQL", storeOnTestDatabase((url) => new PostgreSQLPluginSettingStore({ poolConfig: url }), "lattice_plugin_settings"));
