import type { Pool } from "pg";
import { expect } from "vitest";
import { eventually } from "./eventually";

/**
 * A listener's dedicated LISTEN connection, found by its application_name through an admin pool, so a
 * test can kill it server-side as a network failure or a restarted server would.
 */
export class ListenerConnection {
  constructor(
    private readonly admin: Pool,
    private readonly applicationName: string,
  ) {}

  /** Its backend's pid, once its LISTEN has completed. */
  async backend(): Promise<number | undefined> {
    const { rows } = await this.admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1 AND state = 'idle' AND query LIKE 'LISTEN%'`,
      [this.applicationName],
    );
    return rows.length === 1 ? rows[0].pid : undefined;
  }

  async awaitListening(): Promise<void> {
    await eventually(`${this.applicationName} to listen`, async () => (await this.backend()) !== undefined);
  }

  /** Terminates its backend; returns the killed pid. */
  async kill(): Promise<number> {
    const pid = await this.backend();
    expect(pid).toBeDefined();
    const { rows } = await this.admin.query<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [pid]);
    expect(rows[0].ok).toBe(true);
    return pid!;
  }

  /** Kills it, then waits until the listener has LISTENed again on a new connection. */
  async killAndAwaitRelisten(): Promise<void> {
    const killed = await this.kill();
    await eventually(`${this.applicationName} to listen on a new connection`, async () => {
      const pid = await this.backend();
      return pid !== undefined && pid !== killed;
    });
  }
}
