/**
 * The pauses before retrying work the database interrupted: doubling from `firstMs` up to `maxMs`, so
 * a database that stays down is asked again less and less often; `reset` once work gets through.
 */
export class RetryBackoff {
  private failures = 0;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
  ) {}

  /** The pause before the next attempt; each call counts one more failure. */
  next(): number {
    const delay = Math.min(this.maxMs, this.firstMs * 2 ** this.failures);
    this.failures++;
    return delay;
  }

  reset(): void {
    this.failures = 0;
  }
}
