import type { LeaseStore, OutboxStore, UnitOfWork } from "@axiom-lattice/protocols";
import { type GatewayMetrics, leaseKind } from "./gatewayMetrics";

type Taps<T> = { [K in keyof T]?: T[K] extends (...args: infer A) => Promise<infer R> ? (result: R, ...args: A) => void : never };

/**
 * `target` with `taps` called after the named methods resolve; everything else (optional methods
 * included, which the outbox poller probes for) is the target's own, bound to it.
 */
function tapped<T extends object>(target: T, taps: Taps<T>): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== "function") return value;
      const tap = taps[property as keyof T] as ((result: unknown, ...args: unknown[]) => void) | undefined;
      if (!tap) return value.bind(object);
      return async (...args: unknown[]) => {
        const result: unknown = await value.apply(object, args);
        tap(result, ...args);
        return result;
      };
    },
  });
}

/** The lease store, counting acquisitions and refused renewals by lease kind. */
export function observeLeaseStore(store: LeaseStore, metrics: GatewayMetrics): LeaseStore {
  return tapped(store, {
    acquire: (record, key) => {
      if (record) metrics.leaseAcquisitions.inc({ kind: leaseKind(key) });
    },
    tryAcquire: (acquired, key) => {
      if (acquired) metrics.leaseAcquisitions.inc({ kind: leaseKind(key) });
    },
    renew: (renewed, key) => {
      if (!renewed) metrics.leaseLosses.inc({ kind: leaseKind(key) });
    },
  });
}

/** The outbox store, counting appends by topic. */
export function observeOutboxStore(store: OutboxStore, metrics: GatewayMetrics): OutboxStore {
  return tapped(store, {
    append: (_event, input) => metrics.outboxAppends.inc({ topic: input.topic }),
  });
}

/** A unit of work, counting its appends by topic once it committed. */
export function observeUnitOfWork(unitOfWork: UnitOfWork, metrics: GatewayMetrics): UnitOfWork["inTransaction"] {
  return async (fn) => {
    const topics: string[] = [];
    const result = await unitOfWork.inTransaction((tx) =>
      fn({
        ...tx,
        outbox: {
          append: async (input) => {
            await tx.outbox.append(input);
            topics.push(input.topic);
          },
        },
      }),
    );
    for (const topic of topics) metrics.outboxAppends.inc({ topic });
    return result;
  };
}
