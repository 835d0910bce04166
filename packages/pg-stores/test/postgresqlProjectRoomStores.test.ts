import { type TestDatabase, createTestDatabase, projectRoomMessageStoreContract, projectRoomStoreContract } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll } from "vitest";
import { PostgreSQLProjectRoomMessageStore, PostgreSQLProjectRoomStore, PostgreSQLProjectStore } from "../src";

let database: TestDatabase | undefined;
let pool: Pool | undefined;
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** The three stores on one pool of a fresh database, so room and message races run on many connections. */
async function postgresqlStores() {
  database ??= await createTestDatabase("lattice_rooms");
  pool ??= new Pool({ connectionString: database.url, max: 10 });
  const projects = new PostgreSQLProjectStore({ pool });
  await projects.initialize();
  return { projects, rooms: new PostgreSQLProjectRoomStore({ pool }), messages: new PostgreSQLProjectRoomMessageStore({ pool }) };
}

projectRoomStoreContract("PostgreSQL", postgresqlStores);
projectRoomMessageStoreContract("PostgreSQL", postgresqlStores);
