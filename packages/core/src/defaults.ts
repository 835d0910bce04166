import { InMemoryLeaseStore } from "./coordination/inMemoryLeaseStore";
import { registerDefaultStoreFactory } from "./registry/storeRegistry";

// In-memory stores are the single-process default of every kind that has one.
registerDefaultStoreFactory("lease", () => new InMemoryLeaseStore());
