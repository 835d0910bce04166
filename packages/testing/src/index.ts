export { adminDatabaseUrl, createTestDatabase, type TestDatabase } from "./testDatabase";
export { leaseStoreContract } from "./leaseStoreContract";
