import { webAppStoreContract } from "@axiom-lattice/testing";
import { InMemoryWebAppStore } from "../../src";

webAppStoreContract("in-memory", async () => new InMemoryWebAppStore());
