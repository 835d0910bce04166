import type { Pool, PoolClient } from "pg";

/**
 * Runs `fn` in one transaction on one pooled connection: committed when it resolves, rolled back when
 * it throws. A connection that cannot roll back is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** True for a unique violation on the named constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: unknown; constraint?: unknown } | null;
  return pgError?.code === "23505" && pgError.constraint === constraint;
}
