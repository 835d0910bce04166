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
