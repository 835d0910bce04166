import { Client } from "pg";

/**
 * Opens one connection and runs `SELECT 1`: resolves once the server answers, rejects with why it did
 * not (refused, timed out, starting up, bad credentials...). The connection is closed either way.
 */
export async function checkConnection(connectionString: string, connectTimeoutMs: number): Promise<void> {
  const client = new Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs, query_timeout: connectTimeoutMs });
  // A failure surfaces as the rejected connect or query; the event itself must not crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => undefined);
  }
}
