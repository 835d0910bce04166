import { apiKeyStoreContract } from "@axiom-lattice/testing";
import { InMemoryApiKeyStore } from "../../src";

apiKeyStoreContract("in-memory", async () => new InMemoryApiKeyStore());
