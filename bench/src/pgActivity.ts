// Samples pg_stat_activity for one database while a figure runs: connections per application_name (a
// replica's, when each replica sets its own), how many are running a statement, how many are idle in
// a transaction (the client has not sent its next statement: its process is busy), and what active
// ones wait for. Also keeps every backend pid seen, whose CPU time processCpu can read.
import { Client } from "pg";

interface Sample {
  byApplication: Record<string, { connections: number; active: number; idleInTransaction: number }>;
  lockWaits: number;
  waits: Record<string, number>;
}

export interface ActivitySummary {
  samples: number;
  /** Mean over the samples, per application_name. */
  byApplication: Record<string, { connections: number; active: number; idleInTransaction: number; maxConnections: number }>;
  /** Mean backends waiting for a heavyweight lock (wait_event_type Lock), and the most at once. */
  lockWaits: { mean: number; max: number };
  /** Mean active backends waiting, per `wait_event_type:wait_event` (locks, LWLocks, WAL flushes, …). */
  waits: Record<string, number>;
}

const SAMPLE = `
  SELECT coalesce(nullif(application_name, ''), '(none)') AS application, pid, state, wait_event_type, wait_event
    FROM pg_stat_activity
   WHERE datname = current_database() AND pid <> pg_backend_pid()`;

export class PgActivitySampler {
  private readonly samples: Sample[] = [];
  /** Every backend pid seen (the database's server processes, whose CPU time processCpu reads). */
  readonly pids = new Set<number>();
  private timer?: NodeJS.Timeout;
  private pending?: Promise<void>;

  private constructor(private readonly client: Client) {}

  static async start(databaseUrl: string, everyMs = 200): Promise<PgActivitySampler> {
    const client = new Client({ connectionString: databaseUrl, application_name: "bench-activity-sampler" });
    await client.connect();
    const sampler = new PgActivitySampler(client);
    await sampler.sample();
    sampler.timer = setInterval(() => {
      sampler.pending ??= sampler.sample().finally(() => (sampler.pending = undefined));
    }, everyMs);
    return sampler;
  }

  private async sample(): Promise<void> {
    const { rows } = await this.client.query<{ application: string; pid: number; state: string | null; wait_event_type: string | null; wait_event: string | null }>(SAMPLE);
    const sample: Sample = { byApplication: {}, lockWaits: 0, waits: {} };
    for (const row of rows) {
      this.pids.add(row.pid);
      const counts = (sample.byApplication[row.application] ??= { connections: 0, active: 0, idleInTransaction: 0 });
      counts.connections += 1;
      if (row.state === "idle in transaction") counts.idleInTransaction += 1;
      if (row.state !== "active") continue;
      counts.active += 1;
      if (row.wait_event_type === "Lock") sample.lockWaits += 1;
      if (row.wait_event_type !== null) {
        const wait = `${row.wait_event_type}:${row.wait_event}`;
        sample.waits[wait] = (sample.waits[wait] ?? 0) + 1;
      }
    }
    this.samples.push(sample);
  }

  /** Stops sampling and summarises the samples taken since `start`. */
  async stop(): Promise<ActivitySummary> {
    clearInterval(this.timer);
    await this.pending;
    await this.client.end();
    const n = this.samples.length;
    const applications = new Set(this.samples.flatMap((sample) => Object.keys(sample.byApplication)));
    const mean = (read: (sample: Sample) => number) => this.samples.reduce((sum, sample) => sum + read(sample), 0) / n;
    return {
      samples: n,
      byApplication: Object.fromEntries(
        [...applications].map((application) => [
          application,
          {
            connections: mean((sample) => sample.byApplication[application]?.connections ?? 0),
            active: mean((sample) => sample.byApplication[application]?.active ?? 0),
            idleInTransaction: mean((sample) => sample.byApplication[application]?.idleInTransaction ?? 0),
            maxConnections: Math.max(...this.samples.map((sample) => sample.byApplication[application]?.connections ?? 0)),
          },
        ]),
      ),
      lockWaits: { mean: mean((sample) => sample.lockWaits), max: Math.max(...this.samples.map((sample) => sample.lockWaits)) },
      waits: Object.fromEntries(
        [...new Set(this.samples.flatMap((sample) => Object.keys(sample.waits)))].map((wait) => [wait, mean((sample) => sample.waits[wait] ?? 0)]),
      ),
    };
  }
}
