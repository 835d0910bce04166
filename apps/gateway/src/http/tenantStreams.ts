import { HttpError } from "./errors";

/** Gives a stream's place back; idempotent, so every way a stream can end may call it. */
export type StreamPlace = () => void;

/**
 * The streams each tenant has open on this replica, bounded per tenant (`AXIOM_TENANT_MAX_STREAMS`)
 * so one tenant cannot take every socket and chunk buffer of a replica shared with others.
 */
export class TenantStreams {
  private readonly open = new Map<string, number>();

  /** `limit` 0: no limit. `onRefused` is told of each refusal (metrics). */
  constructor(
    private readonly limit: number,
    private readonly onRefused: (tenantId: string) => void = () => {},
  ) {}

  /**
   * A place for one more stream of the tenant, taken before anything is queued or opened for it;
   * over the limit, a `TOO_MANY_STREAMS` refusal.
   */
  take(tenantId: string): StreamPlace {
    const count = this.open.get(tenantId) ?? 0;
    if (this.limit > 0 && count >= this.limit) {
      this.onRefused(tenantId);
      throw new HttpError("TOO_MANY_STREAMS", `The tenant already has ${this.limit} streams open on this replica; close one or retry later`);
    }
    this.open.set(tenantId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.open.get(tenantId)! - 1;
      if (left === 0) this.open.delete(tenantId);
      else this.open.set(tenantId, left);
    };
  }

  /** Open streams by tenant (tenants with none are left out). */
  byTenant(): ReadonlyMap<string, number> {
    return this.open;
  }
}
