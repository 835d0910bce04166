import { pluginSettingStoreContract } from "@axiom-lattice/testing";
import { InMemoryPluginSettingStore } from "../../src";

pluginSettingStoreContract("in-memory", async () => new InMemoryPluginSettingStore());
