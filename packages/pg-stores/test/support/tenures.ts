import type { Pool } from "pg";

type Queryable = Pick<Pool, "query">;

/** One holder's time with a lease, by the database clock (microseconds since the epoch). */
export interface Tenure {
  holder: string;
  token: bigint;
  start: bigint;
  end: bigint;
}

/**
 * Every way the tenures break exclusive, fenced ownership: two tenures that overlap in time, or a
 * tenure whose token does not exceed the token of the tenure before it. Empty when all is well.
 */
export function tenureViolations(tenures: readonly Tenure[]): string[] {
  const sorted = [...tenures].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const violations: string[] = [];
  let latest: Tenure | undefined; // the tenure ending last so far: a later start must not precede its end
  let previous: Tenure | undefined;
  for (const tenure of sorted) {
    if (tenure.end < tenure.start) violations.push(`${tenure.holder} ended before it started`);
    if (latest && tenure.start < latest.end) {
      violations.push(`${tenure.holder} started ${latest.end - tenure.start} µs before ${latest.holder} ended`);
    }
    if (previous && tenure.token <= previous.token) {
      violations.push(`${tenure.holder} has token ${tenure.token}, not above ${previous.holder}'s ${previous.token}`);
    }
    if (!latest || tenure.end > latest.end) latest = tenure;
    previous = tenure;
  }
  return violations;
}

/** The table racing children record their tenures in: inserted at start, ended, by the database clock. */
export const TENURES_TABLE = `
  CREATE TABLE tenures (
    id         serial      PRIMARY KEY,
    run        text        NOT NULL,
    process    text        NOT NULL,
    holder     text        NOT NULL,
    token      bigint      NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at   timestamptz
  );
`;

/** A timestamp expression as microseconds since the epoch, as text (exact in a bigint). */
export const MICROS = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;

/** Every tenure recorded for `run`; one that never ended fails the test. */
export async function tenuresOf(pool: Queryable, run: string): Promise<(Tenure & { process: string })[]> {
  const { rows } = await pool.query<{ process: string; holder: string; token: string; start: string; end: string | null }>(
    `SELECT process, holder, token::text AS token, ${MICROS("started_at")} AS start, ${MICROS("ended_at")} AS "end"
       FROM tenures WHERE run = $1`,
    [run],
  );
  return rows.map((row) => {
    if (row.end === null) throw new Error(`tenure of ${row.holder} never ended`);
    return { process: row.process, holder: row.holder, token: BigInt(row.token), start: BigInt(row.start), end: BigInt(row.end) };
  });
}
