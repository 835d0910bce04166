import type { Logger } from "@axiom-lattice/core";
import { Client, type ClientConfig } from "pg";
import { LISTENER_FIRST_RETRY_MS, LISTENER_MAX_RETRY_MS } from "../defaults";

export interface NotificationListenerOptions {
  /** How to connect (the pool's config: the listener opens its own connection, outside the pool). */
  connection: ClientConfig;
  /** A plain lower-case identifier. */
  channel: string;
  /** Shown in pg_stat_activity, so operators (and tests) can find the listening backend. */
  applicationName: string;
  /** First reconnect delay; doubles per failed attempt up to `maxBackoffMs` (defaults 100 ms, 10 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  logger: Logger;
}

interface Run {
  stopped: boolean;
  /** Resolves when the run is told to stop, cutting short a wait or a live connection. */
  readonly stopSignal: Promise<void>;
  stop(): void;
  done: Promise<void>;
}

/**
 * LISTENs on one channel over a dedicated connection, and re-establishes it (with backoff and
 * jitter) whenever it drops. Subscribers are woken on every notification (with its payload), and
 * also after every successful (re-)LISTEN (without one), since notifications sent while not
 * listening are lost.
 *
 * Hand-written rather than pg-listen: that library (last released 2020) gives up reconnecting after
 * 3 s by default, has open reports of never recovering from a terminated backend, and offers no
 * "listening again" signal to catch up on.
 */
export class NotificationListener {
  private readonly subscribers = new Set<(payload?: string) => void>();
  private readonly log: Logger;
  private run: Run | undefined;

  constructor(private readonly options: NotificationListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new TypeError(`Not a plain channel name: ${options.channel}`);
    this.log = options.logger.child({ phase: "pg_listener", channel: options.channel });
  }

  /** Adds a wake-up callback; the first one opens the connection, removing the last closes it. */
  subscribe(onWake: (payload?: string) => void): () => void {
    this.subscribers.add(onWake);
    if (!this.run || this.run.stopped) this.run = this.startRun(this.run?.done);
    return () => {
      this.subscribers.delete(onWake);
      if (this.subscribers.size === 0) this.run?.stop();
    };
  }

  /** Drops every subscriber and closes the connection. */
  async close(): Promise<void> {
    this.subscribers.clear();
    const run = this.run;
    run?.stop();
    await run?.done;
  }

  /** A new connection loop, begun once the previous one (if any) has wound down. */
  private startRun(previous: Promise<void> | undefined): Run {
    let signalStop = () => {};
    const run: Run = {
      stopped: false,
      stopSignal: new Promise<void>((resolve) => {
        signalStop = resolve;
      }),
      stop() {
        run.stopped = true;
        signalStop();
      },
      done: Promise.resolve(),
    };
    run.done = (previous ?? Promise.resolve()).then(() => this.loop(run));
    return run;
  }

  private async loop(run: Run): Promise<void> {
    const minBackoff = this.options.minBackoffMs ?? LISTENER_FIRST_RETRY_MS;
    const maxBackoff = this.options.maxBackoffMs ?? LISTENER_MAX_RETRY_MS;
    let failures = 0;
    while (!run.stopped) {
      const listened = await this.session(run);
      if (run.stopped) break;
      failures = listened ? 0 : failures + 1;
      const ceiling = Math.min(maxBackoff, minBackoff * 2 ** failures);
      // Jitter: replicas that lost the server together do not come back in lockstep.
      const delay = ceiling / 2 + Math.random() * (ceiling / 2);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, delay))), run.stopSignal]);
      clearTimeout(timer);
    }
  }

  /** One connection's life; true when it got as far as listening. */
  private async session(run: Run): Promise<boolean> {
    const client = new Client({
      ...this.options.connection,
      application_name: this.options.applicationName,
      // Notice a silently dead peer (no traffic flows on an idle LISTEN connection).
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // An unreachable server must not stall the retry loop on the operating system's TCP timeout.
      connectionTimeoutMillis: this.options.connection.connectionTimeoutMillis || 10_000,
    });
    let listened = false;
    const lost = new Promise<unknown>((resolve) => {
      // An 'error' listener must exist from the start, or a dropped connection crashes the process.
      client.on("error", resolve);
      client.on("end", () => resolve(new Error("connection ended")));
    });
    try {
      await client.connect();
      client.on("notification", (message) => this.wake(message.payload));
      await client.query(`LISTEN ${this.options.channel}`);
      listened = true;
      this.wake();
      const reason = await Promise.race([lost, run.stopSignal]);
      if (reason !== undefined) this.log.warn({ err: reason }, "notification connection lost; reconnecting");
    } catch (error) {
      this.log.warn({ err: error }, "notification connection failed; retrying");
    } finally {
      await client.end().catch(() => undefined);
    }
    return listened;
  }

  private wake(payload?: string): void {
    for (const subscriber of [...this.subscribers]) {
      try {
        subscriber(payload);
      } catch (error) {
        this.log.warn({ err: error }, "wake-up subscriber failed");
      }
    }
  }
}
