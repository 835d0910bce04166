import { randomBytes } from "node:crypto";
import { Client } from "pg";

/** The server tests create their databases on (an admin connection). */
export function adminDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh, empty database for one test file. */
export async function createTestDatabase(prefix = "lattice_test"): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withAdmin(async (client) => {
        // pg's Pool.end() resolves before its sockets close: give closing sessions a moment, so FORCE
        // only ends connections left open (which would otherwise surface as an unhandled pool error).
        const deadline = Date.now() + 2_000;
        while (Date.now() < deadline) {
          const { rows } = await client.query("SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1", [name]);
          if (rows.length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}
