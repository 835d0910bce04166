// A page key's timestamp is its epoch microseconds: PostgreSQL keeps microseconds, a JS Date only
// milliseconds, so a key read through a Date would name a row inexactly and repeat or skip rows.

/** The epoch microseconds of the timestamptz `column`, exactly (a bigint: node-postgres reads it as a string). */
export const epochMicros = (column: string): string => `(extract(epoch FROM ${column}) * 1000000)::bigint`;

/** The timestamptz of the epoch microseconds `param` (a page key's number), exactly: compared with the column, it keeps the column's index. */
export const fromEpochMicros = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;
