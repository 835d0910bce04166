// Counts a server process's PostgreSQL transactions and statements by kind, from inside the process:
// pg_stat_statements would count them in the server, but it needs `shared_preload_libraries` and a
// restart, which a stock (and shared) server does not have. pg_stat_database counts transactions but
// says nothing of what they were.
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerProcess } from "./serverProcess";

// Not SIGWINCH (the memory probe's), not SIGUSR1/2 (Node's inspector, the gateway's shutdown): a
// process without the hook ignores SIGURG, so a missing hook shows as a timeout, not a dead server.
const COUNT_SIGNAL = "SIGURG";
const REPORT_PREFIX = "bench-pg-counts ";
// The pg the gateway's stores load (one version in the workspace): patching its Client prototype
// reaches every connection of the process, pooled, LISTEN and LangGraph's saver alike.
const PG_FROM = resolve(__dirname, "../../packages/pg-stores/package.json");

// A statement's kind: its prepared name when it has one, else its write verbs and the tables it names
// (the fence CTE's lattice_leases included). A transaction's kind: its statements' kinds in order,
// repeats folded; a statement outside BEGIN … COMMIT is a transaction of its own, as in PostgreSQL.
// The acquire of a lease that someone else holds answers no row: counted apart, as a refused lease.
const HOOK_SOURCE = `import { createRequire } from "node:module";
const pg = createRequire(${JSON.stringify(PG_FROM)})("pg");
const counts = { statements: 0, transactions: {} };
const open = new WeakMap();
const textOf = (config) => (typeof config === "string" ? config : (config && config.text) || "");
function kindOf(config) {
  if (config && typeof config === "object" && config.name) return config.name;
  const text = textOf(config).replace(/\\s+/g, " ").trim();
  const tables = [...new Set(text.match(/\\b(?:lattice_\\w+|checkpoint\\w*)\\b/gi) || [])];
  const verbs = [...new Set((text.match(/\\b(?:INSERT|UPDATE|DELETE|NOTIFY|pg_notify|LISTEN)\\b/gi) || []).map((v) => v.toUpperCase()))];
  return tables.length ? (verbs.length ? verbs.join("+") : "SELECT") + " " + tables.join(",") : text.slice(0, 48);
}
const add = (kind) => { counts.transactions[kind] = (counts.transactions[kind] || 0) + 1; };
function seen(client, config, rowCount) {
  const text = textOf(config).trim().toUpperCase();
  counts.statements += 1;
  if (text === "BEGIN" || text.startsWith("BEGIN ") || text.startsWith("START TRANSACTION")) { open.set(client, []); return; }
  if (text === "COMMIT" || text === "ROLLBACK") {
    const kinds = open.get(client) || [];
    open.delete(client);
    add("tx[" + kinds.filter((k, i) => k !== kinds[i - 1]).join("; ") + "]" + (text === "ROLLBACK" ? " rolled back" : ""));
    return;
  }
  let kind = kindOf(config);
  if (kind === "lattice_lease_acquire" && rowCount === 0) kind += " (refused)";
  const inside = open.get(client);
  if (inside) inside.push(kind); else add(kind);
}
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, values, callback) {
  const client = this;
  const args = [...arguments];
  const last = args.length - 1;
  if (typeof args[last] === "function") {
    const done = args[last];
    args[last] = function (error, result) { seen(client, config, result && result.rowCount); return done.apply(this, arguments); };
    return query.apply(this, args);
  }
  const answer = query.apply(this, args);
  if (answer && typeof answer.then === "function") answer.then((result) => seen(client, config, result && result.rowCount), () => seen(client, config, undefined));
  return answer;
};
process.on(${JSON.stringify(COUNT_SIGNAL)}, () => process.stderr.write(${JSON.stringify(REPORT_PREFIX)} + JSON.stringify(counts) + "\\n"));`;

/** Node flags that give a process the counting hook; the gateway's CLI and code are unchanged. */
export const PG_COUNTER_FLAGS = ["--import", `data:text/javascript,${encodeURIComponent(HOOK_SOURCE)}`];

/** What a process started with {@link PG_COUNTER_FLAGS} has sent so far (statements include BEGIN and COMMIT). */
export interface PgCounts {
  statements: number;
  /** Transactions by kind (see the hook). */
  transactions: Record<string, number>;
}

/** The counts of a process started with {@link PG_COUNTER_FLAGS}. */
export async function readPgCounts(server: ServerProcess, timeoutMs = 10_000): Promise<PgCounts> {
  const before = server.logs.split(REPORT_PREFIX).length;
  server.signal(COUNT_SIGNAL);
  const deadline = Date.now() + timeoutMs;
  let reports = server.logs.split(REPORT_PREFIX);
  while (reports.length === before || !reports[reports.length - 1].includes("\n")) {
    if (Date.now() > deadline) throw new Error(`${server.name} printed no statement counts (started without PG_COUNTER_FLAGS?)`);
    await sleep(20);
    reports = server.logs.split(REPORT_PREFIX);
  }
  return JSON.parse(reports[reports.length - 1].split("\n")[0]) as PgCounts;
}

/** `after` − `before`, kinds that did not change left out. */
export function pgCountsBetween(before: PgCounts, after: PgCounts): PgCounts {
  const transactions: Record<string, number> = {};
  for (const [kind, count] of Object.entries(after.transactions)) {
    const delta = count - (before.transactions[kind] ?? 0);
    if (delta) transactions[kind] = delta;
  }
  return { statements: after.statements - before.statements, transactions };
}
