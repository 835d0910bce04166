import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { delimiter, join } from "node:path";
import { Client } from "pg";
import { freePort } from "./freePort";

/** The pgbouncer binary: on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export function findPgBouncer(): string | undefined {
  const candidates = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/sbin"].map((dir) => join(dir, "pgbouncer"));
  return candidates.find((candidate) => existsSync(candidate));
}

export interface PgBouncerOptions {
  /** The database to pool, as a direct URL; clients reach it under the same name and user. */
  databaseUrl: string;
  /** Server connections pgbouncer opens to it (default_pool_size). */
  poolSize: number;
  /** The password clients must give (SCRAM), as poolers in production ask; by default any client may connect. */
  clientPassword?: string;
}

/**
 * A private pgbouncer in transaction mode in front of one database, on a free port, with its
 * config, log and pid in a fresh temporary folder. Clients authenticate as nobody in particular
 * (`auth_type = any`), or with `clientPassword` (its `url` holds it): pgbouncer logs in to PostgreSQL as
 * the URL's user.
 */
export class PgBouncer {
  private constructor(
    /** The database through pgbouncer. */
    readonly url: string,
    private readonly process: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start({ databaseUrl, poolSize, clientPassword }: PgBouncerOptions): Promise<PgBouncer> {
    const binary = findPgBouncer();
    if (!binary) throw new Error("pgbouncer is not installed");
    const target = new URL(databaseUrl);
    const database = decodeURIComponent(target.pathname.slice(1));
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "lattice-pgbouncer-"));
    // pgbouncer refuses to run as root; as root it switches to nobody, who must write its log here.
    const asRoot = userInfo().uid === 0;
    if (asRoot) chmodSync(dir, 0o777);
    const configFile = join(dir, "pgbouncer.ini");
    const user = decodeURIComponent(target.username);
    const userList = join(dir, "userlist.txt");
    if (clientPassword !== undefined) writeFileSync(userList, `"${user}" "${clientPassword}"\n`, { mode: 0o644 });
    writeFileSync(
      configFile,
      [
        "[databases]",
        `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        ...(clientPassword === undefined ? ["auth_type = any"] : ["auth_type = scram-sha-256", `auth_file = ${userList}`]),
        "pool_mode = transaction",
        "max_client_conn = 1000",
        `default_pool_size = ${poolSize}`,
        "reserve_pool_size = 0",
        `logfile = ${join(dir, "pgbouncer.log")}`,
        `pidfile = ${join(dir, "pgbouncer.pid")}`,
        "",
      ].join("\n"),
    );
    const child = spawn(binary, [...(asRoot ? ["-u", "nobody"] : []), configFile], { stdio: "ignore" });
    const through = new URL(databaseUrl);
    through.hostname = "127.0.0.1";
    through.port = String(port);
    if (clientPassword !== undefined) through.password = encodeURIComponent(clientPassword);
    const bouncer = new PgBouncer(through.toString(), child, dir);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = new Client({ connectionString: bouncer.url });
      const connected = await client.connect().then(
        () => client.query("SELECT 1").then(() => true),
        () => false,
      );
      await client.end().catch(() => undefined);
      if (connected) return bouncer;
      if (child.exitCode !== null || Date.now() > deadline) {
        const log = bouncer.log();
        await bouncer.stop();
        throw new Error(`pgbouncer did not start:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** What pgbouncer logged so far. */
  log(): string {
    const file = join(this.dir, "pgbouncer.log");
    return existsSync(file) ? readFileSync(file, "utf8") : "";
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((resolve) => this.process.once("exit", resolve));
      // SIGINT: immediate shutdown, closing every client and server connection.
      this.process.kill("SIGINT");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
