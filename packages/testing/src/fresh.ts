let seq = 0;

/**
 * A name no earlier call in any test process produced: suites share one store or database, so every
 * test works on keys of its own.
 */
export const fresh = (what: string): string => `${what}-${process.pid}-${Date.now()}-${++seq}`;
