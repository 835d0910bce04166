import { type MaintenanceTask, type OutboxHandler, type OutboxTopicHandlers, outboxHandlersOf } from "@axiom-lattice/core";

/**
 * One area of a gateway as its composition root wires it: the topics it hears from peers, the upkeep
 * it does for the cluster on the maintenance leader, and the background work it starts once the
 * server listens and stops when the gateway closes. Each area's factory takes what it uses explicitly
 * and builds it; the root lists the areas in construction order. Routes stay in `server.ts`, which
 * registers them by role and in the order the API document lists them.
 */
export interface Subsystem {
  /** Names it in the stop order. */
  readonly name: string;
  /** The outbox topics it handles, gathered into the poller's table. */
  readonly outboxHandlers?: OutboxTopicHandlers;
  /** Its tasks on the maintenance leader, gathered in list order: the order a leader runs them. */
  readonly maintenanceTasks?: readonly MaintenanceTask[];
  /** Starts its background work (`startBackground`), in list order. */
  start?(): void | Promise<void>;
  /** Stops what it runs (`close`), in the gateway's stop order. */
  stop?(): void | Promise<void>;
}

/** The poller's handler table: every topic the subsystems handle (two handling one topic is refused). */
export function outboxHandlersOfSubsystems(subsystems: readonly Subsystem[]): Record<string, OutboxHandler> {
  return outboxHandlersOf(...subsystems.flatMap((subsystem) => (subsystem.outboxHandlers ? [subsystem.outboxHandlers] : [])));
}

/** The subsystems' maintenance tasks, in list order. */
export function maintenanceTasksOf(subsystems: readonly Subsystem[]): MaintenanceTask[] {
  return subsystems.flatMap((subsystem) => subsystem.maintenanceTasks ?? []);
}

/**
 * The subsystems that stop, in `order` (names). Every one of them must be named there exactly once,
 * and nothing else: a subsystem added without a place in the stop order is a wiring mistake, refused
 * when the gateway is built rather than left running at close.
 */
export function stopSequence(subsystems: readonly Subsystem[], order: readonly string[]): Subsystem[] {
  const stopping = new Map(subsystems.filter((subsystem) => subsystem.stop).map((subsystem) => [subsystem.name, subsystem]));
  const sequence = order.map((name) => {
    const subsystem = stopping.get(name);
    if (!subsystem) throw new Error(`The stop order names "${name}", which is no subsystem that stops`);
    stopping.delete(name);
    return subsystem;
  });
  if (stopping.size > 0) throw new Error(`Subsystems missing from the stop order: ${[...stopping.keys()].join(", ")}`);
  return sequence;
}

/**
 * Runs `step` on each subsystem in turn, awaiting only the steps that return a promise: synchronous
 * ones run back to back, so nothing (a peer's event, a timer) comes between them.
 */
export async function runInOrder(subsystems: readonly Subsystem[], step: "start" | "stop"): Promise<void> {
  for (const subsystem of subsystems) {
    const pending = subsystem[step]?.();
    if (pending) await pending;
  }
}

/** A gateway's background work and shutdown, over its subsystems. */
export interface SubsystemLifecycle {
  /** Starts each subsystem in list order; once. */
  startBackground(): Promise<void>;
  /** Stops each subsystem in `stopOrder`; once (every call answers the same promise). */
  close(): Promise<void>;
}

export function subsystemLifecycle(subsystems: readonly Subsystem[], stopOrder: readonly string[]): SubsystemLifecycle {
  const stopping = stopSequence(subsystems, stopOrder);
  let started = false;
  let closed: Promise<void> | undefined;
  return {
    async startBackground() {
      if (started) return;
      started = true;
      await runInOrder(subsystems, "start");
    },
    close() {
      closed ??= runInOrder(stopping, "stop");
      return closed;
    },
  };
}
