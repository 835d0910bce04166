import type { Pool, PoolClient } from "pg";
import { eventually } from "./client";

/** The advisory lock a held checkpoint write waits on (a single bigint key: no product lock uses it). */
const HOLD_KEY = 1_400_014;

/**
 * Operator-side fault injection, no product hook: a trigger on `checkpoint_blobs` makes the checkpoint
 * that would store an armed answer wait on an advisory lock this test holds, inside the checkpoint's
 * transaction: the moment "the model answered, the checkpoint holding its answer did not commit". A
 * run stores a step's pending writes (the answer among them) with the next checkpoint it stores: that
 * held one, or (when the answer came while the checkpoint before was still being stored) that one,
 * so the answer is then a pending write and in no checkpoint. Terminating the waiting backend rolls
 * the held checkpoint back, as the writer's crash would.
 */
export class CheckpointBlocker {
  private constructor(private readonly pool: Pool) {}

  /** Creates the control table and the trigger; call once the replicas set the checkpoint tables up. */
  static async install(pool: Pool): Promise<CheckpointBlocker> {
    await pool.query(`
      CREATE TABLE e2e_crash_points (answer text PRIMARY KEY);
      CREATE FUNCTION e2e_hold_armed_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.channel = 'messages' AND EXISTS (
             SELECT 1 FROM e2e_crash_points WHERE position(convert_to(answer, 'UTF8') IN NEW.blob) > 0) THEN
          PERFORM pg_advisory_xact_lock(${HOLD_KEY});
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER e2e_hold_armed_checkpoint BEFORE INSERT OR UPDATE ON checkpoint_blobs
        FOR EACH ROW EXECUTE FUNCTION e2e_hold_armed_checkpoint();`);
    return new CheckpointBlocker(pool);
  }

  /**
   * Arms `answer`, calls `send` (which queues the message answered so), waits until the checkpoint that
   * would store the answer is held, then calls `run` with the held writer's backend pid (`run` kills the writer's process). Afterwards the
   * answer is disarmed, the backend terminated and the lock released, in that order: no later
   * checkpoint is held.
   */
  async holdCheckpoint<T>(
    answer: string,
    { send, run }: { send: () => Promise<unknown>; run: (blockedPid: number) => Promise<T> },
  ): Promise<T> {
    // The lock is a session's: one connection takes it, and only that one releases it.
    const session: PoolClient = await this.pool.connect();
    let blockedPid: number | undefined;
    try {
      await session.query("SELECT pg_advisory_lock($1)", [HOLD_KEY]);
      await session.query("INSERT INTO e2e_crash_points (answer) VALUES ($1)", [answer]);
      await send();
      blockedPid = await eventually(() => this.heldWriter(), 60_000, `a checkpoint holding "${answer}" waits on the lock`);
      return await run(blockedPid);
    } finally {
      await this.release(session, answer, blockedPid).finally(() => session.release());
    }
  }

  /** Disarms `answer`, ends the held writer's backend (rolling its checkpoint back), then frees the lock. */
  private async release(session: PoolClient, answer: string, blockedPid: number | undefined): Promise<void> {
    await session.query("DELETE FROM e2e_crash_points WHERE answer = $1", [answer]);
    // The backend of a killed client, waiting on a lock, never notices that its client is gone.
    if (blockedPid !== undefined) await session.query("SELECT pg_terminate_backend($1)", [blockedPid]);
    await session.query("SELECT pg_advisory_unlock($1)", [HOLD_KEY]);
  }

  /** The pid of a backend waiting on the hold lock in this database, if any. */
  private async heldWriter(): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = 0 AND objid = $1 AND objsubid = 1`,
      [HOLD_KEY],
    );
    return rows[0]?.pid;
  }
}
