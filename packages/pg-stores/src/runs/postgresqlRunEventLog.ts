import { requireTenantId, validateFence } from "@axiom-lattice/core";
import type { FencedWriteOptions, RunEvent, RunEventLog, RunEventRef } from "@axiom-lattice/protocols";
import { assertHeld, fenceParams } from "../coordination/fenceSql";
import { NotificationListener } from "../db/notificationListener";
import { PgStore } from "../db/pgStore";
import type { PgStoreOptions } from "../db/pool";
import { listenConnection } from "../db/pooler";
import {
  APPEND_RUN_EVENTS,
  DELETE_RUN_EVENTS,
  DELETE_THREAD_RUN_EVENTS,
  LAST_RUN_EVENT_INDEX,
  PRUNE_RUN_EVENTS,
  READ_RUN_EVENTS,
  RUN_EVENTS_CHANNEL,
  runEventArrays,
} from "./runEventSql";

export interface PostgreSQLRunEventLogOptions extends PgStoreOptions {
  /** application_name of the LISTEN connection (default "lattice-run-events"). */
  listenerApplicationName?: string;
}

interface RunEventRow {
  event_index: number;
  type: RunEvent["type"];
  data: unknown;
}

const runKey = (run: RunEventRef) => [requireTenantId(run.tenantId), run.assistantId, run.threadId, run.messageId];

/**
 * {@link RunEventLog} on `lattice_run_events`. Each append notifies `lattice_run_events` with the run
 * as JSON; subscribers LISTEN on a dedicated connection (opened on the first), re-established when it drops.
 */
export class PostgreSQLRunEventLog extends PgStore implements RunEventLog {
  private readonly listener: NotificationListener;

  constructor(options: PostgreSQLRunEventLogOptions) {
    super(options);
    this.listener = new NotificationListener({
      connection: listenConnection(this.pool, options),
      channel: RUN_EVENTS_CHANNEL,
      applicationName: options.listenerApplicationName ?? "lattice-run-events",
      logger: this.logger,
    });
  }

  async append(run: RunEventRef, events: RunEvent[], options?: FencedWriteOptions): Promise<void> {
    const fence = validateFence(options);
    if (events.length === 0) return;
    await this.initialize();
    const { tenantId, assistantId, threadId, messageId } = run;
    const { rows } = await this.pool.query<{ fence_holds: boolean }>(APPEND_RUN_EVENTS, [
      ...runKey(run),
      ...runEventArrays(events),
      RUN_EVENTS_CHANNEL,
      JSON.stringify({ tenantId, assistantId, threadId, messageId }),
      ...fenceParams(fence),
    ]);
    assertHeld(rows[0].fence_holds, fence);
  }

  async read(run: RunEventRef, afterIndex: number, limit: number): Promise<RunEvent[]> {
    await this.initialize();
    const { rows } = await this.pool.query<RunEventRow>(READ_RUN_EVENTS, [...runKey(run), afterIndex, limit]);
    return rows.map((row) => ({ type: row.type, data: row.data, index: row.event_index }));
  }

  async lastIndex(run: RunEventRef): Promise<number> {
    await this.initialize();
    const { rows } = await this.pool.query<{ last_index: number }>(LAST_RUN_EVENT_INDEX, runKey(run));
    return rows[0].last_index;
  }

  async deleteRun(run: RunEventRef): Promise<void> {
    await this.initialize();
    await this.pool.query(DELETE_RUN_EVENTS, runKey(run));
  }

  async deleteThread(thread: Omit<RunEventRef, "messageId">): Promise<void> {
    await this.initialize();
    await this.pool.query(DELETE_THREAD_RUN_EVENTS, [requireTenantId(thread.tenantId), thread.assistantId, thread.threadId]);
  }

  async pruneOlderThan(olderThanMs: number): Promise<number> {
    await this.initialize();
    return (await this.pool.query(PRUNE_RUN_EVENTS, [olderThanMs])).rowCount ?? 0;
  }

  subscribe(listener: (run?: RunEventRef) => void): () => void {
    return this.listener.subscribe((payload) => {
      // No payload: listening (again) after a gap; followers read again.
      if (payload === undefined) return listener();
      const run = parseRun(payload);
      if (run) listener(run);
      else this.logger.warn({ phase: "run-events", payload }, "ignored a malformed run event notification");
    });
  }

  /** Closes the LISTEN connection, and the pool when this store created it. */
  override async dispose(): Promise<void> {
    await this.listener.close();
    await super.dispose();
  }
}

function parseRun(payload: string): RunEventRef | null {
  try {
    const { tenantId, assistantId, threadId, messageId } = JSON.parse(payload) as Record<string, unknown>;
    if (typeof tenantId === "string" && typeof assistantId === "string" && typeof threadId === "string" && typeof messageId === "string") {
      return { tenantId, assistantId, threadId, messageId };
    }
  } catch {
    // Falls through: malformed.
  }
  return null;
}
