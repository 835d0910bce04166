import { HttpError } from "./errors";

/**
 * The run submissions each tenant has under way on this replica: a request creating a run, from its
 * lookups to its message being queued (not the run itself, nor a `wait` or `stream` request's wait
 * for it). Each holds a database connection most of the time, and a tenant's bounded queueing
 * serialises on its advisory lock while holding one, so a tenant with 40 clients could hold every
 * connection of the pool, and every other tenant's request and run waited behind them (issue 42,
 * bench B13). Held to `limit` at once per tenant (`AXIOM_TENANT_MAX_RUN_SUBMISSIONS`), the tenant's
 * excess waits here, in its own first-come line, holding no connection; past `maxWaiting` waiting it
 * is refused (`429 TOO_MANY_SUBMISSIONS`), before any database work. Another tenant's submission never
 * waits in that line.
 */
export class TenantSubmissions {
  private readonly underWay = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  /** `limit` 0: no limit. `onRefused` is told of each refusal (metrics). */
  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
    private readonly onRefused: (tenantId: string) => void = () => {},
  ) {}

  /** Runs `submit` once the tenant has a place, and gives the place back when it settles. */
  async submit<T>(tenantId: string, submit: () => Promise<T>): Promise<T> {
    if (this.limit === 0) return submit();
    await this.enter(tenantId);
    try {
      return await submit();
    } finally {
      this.leave(tenantId);
    }
  }

  /** Submissions under way and waiting, by tenant (tenants with neither are left out). */
  byTenant(): Map<string, { underWay: number; waiting: number }> {
    const tenants = new Map<string, { underWay: number; waiting: number }>();
    for (const [tenantId, underWay] of this.underWay) tenants.set(tenantId, { underWay, waiting: this.waiting.get(tenantId)?.length ?? 0 });
    return tenants;
  }

  private async enter(tenantId: string): Promise<void> {
    const underWay = this.underWay.get(tenantId) ?? 0;
    if (underWay < this.limit) {
      this.underWay.set(tenantId, underWay + 1);
      return;
    }
    const line = this.waiting.get(tenantId) ?? [];
    if (line.length >= this.maxWaiting) {
      this.onRefused(tenantId);
      throw new HttpError(
        "TOO_MANY_SUBMISSIONS",
        `The tenant already has ${this.limit} runs being submitted and ${this.maxWaiting} more waiting on this replica; retry later`,
      );
    }
    this.waiting.set(tenantId, line);
    // `leave` hands its place over: the count stays as it is.
    await new Promise<void>((resolve) => line.push(resolve));
  }

  private leave(tenantId: string): void {
    const line = this.waiting.get(tenantId);
    const next = line?.shift();
    if (next) {
      if (line!.length === 0) this.waiting.delete(tenantId);
      next();
      return;
    }
    const left = this.underWay.get(tenantId)! - 1;
    if (left === 0) this.underWay.delete(tenantId);
    else this.underWay.set(tenantId, left);
  }
}
