import { type Logger, type OutboxHandler, OutboxPoller } from "@axiom-lattice/core";
import type { OutboxStore } from "@axiom-lattice/protocols";
import type { Subsystem } from "../context/subsystem";
import type { GatewayMetrics } from "../metrics/gatewayMetrics";

export interface OutboxSubsystem extends Subsystem {
  /** Started by `recover`, before anything it restores is read. */
  poller: OutboxPoller;
}

/** Delivers the peers' outbox events to `handlers` (every subsystem's topics). */
export function outboxSubsystem({
  store,
  replicaId,
  logger,
  metrics,
  handlers,
}: {
  store: OutboxStore;
  replicaId: string;
  logger: Logger;
  metrics: GatewayMetrics;
  handlers: Record<string, OutboxHandler>;
}): OutboxSubsystem {
  const poller = new OutboxPoller({ store, owner: replicaId, logger, observer: metrics.observer, handlers });
  return { name: "outbox", poller, stop: () => poller.stop() };
}
