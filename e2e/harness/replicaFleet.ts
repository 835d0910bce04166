import { setTimeout as sleep } from "node:timers/promises";
import type { useCluster } from "./cluster";
import type { Replica } from "./replica";

type Cluster = ReturnType<typeof useCluster>;

/**
 * Replicas under chaos: a fixed number of slots, each running one gateway process at a time. A killed
 * process is replaced in its slot, under its slot's first id or a new one (`replica-2-r3`), so a
 * thread's dead owner comes back either as itself or as a stranger.
 */
export class ReplicaFleet {
  /** SIGKILLs sent so far. */
  kills = 0;
  /** Pauses (SIGSTOP, then SIGCONT) so far. */
  pauses = 0;
  private readonly slots: Array<Replica | undefined>;
  /** Each slot's first replica id, which a restart reuses or extends. */
  private readonly slotIds: string[];
  private readonly generations: number[];
  private readonly killed = new Set<Replica>();

  constructor(
    private readonly cluster: Cluster,
    private readonly options: { databaseUrl: string; env: Record<string, string>; log(line: string): void },
    replicas: Replica[],
  ) {
    this.slots = [...replicas];
    this.slotIds = replicas.map((replica) => replica.replicaId);
    this.generations = replicas.map(() => 1);
  }

  /** The processes that are up and ready. */
  live(): Replica[] {
    return this.slots.filter((replica): replica is Replica => replica !== undefined);
  }

  /** Every process the fleet ran, killed ones included. */
  processes(): Replica[] {
    return [...this.killed, ...this.live()];
  }

  /** A random live replica, other than `except` when there is another. */
  any(except?: Replica): Replica {
    const live = this.live();
    const others = live.filter((replica) => replica !== except);
    const choice = others.length > 0 ? others : live;
    if (choice.length === 0) throw new Error("no live replica");
    return choice[Math.floor(Math.random() * choice.length)];
  }

  /** The live replica running under `replicaId`, if any. */
  byId(replicaId: string): Replica | undefined {
    return this.live().find((replica) => replica.replicaId === replicaId);
  }

  /** Whether this process was SIGKILLed by the fleet (a connection it drops is expected). */
  wasKilled(replica: Replica): boolean {
    return this.killed.has(replica);
  }

  /** SIGKILLs a live replica (by its pid) and returns its slot; refuses to kill the last one up. */
  async kill(replica: Replica): Promise<number> {
    const slot = this.slots.indexOf(replica);
    if (slot === -1) throw new Error(`${replica.replicaId} is not live`);
    if (this.live().length < 2) throw new Error(`killing ${replica.replicaId} would leave no replica up`);
    // Marked before the signal, so a request it drops is already known to have hit a dead replica.
    this.killed.add(replica);
    this.slots[slot] = undefined;
    this.kills++;
    await replica.stop("SIGKILL");
    this.options.log(`kill -9 ${replica.replicaId} (pid ${replica.pid})`);
    return slot;
  }

  /** Pauses a live replica for `ms` (SIGSTOP), then lets it go on (SIGCONT). */
  async pause(replica: Replica, ms: number): Promise<void> {
    if (!this.live().includes(replica)) throw new Error(`${replica.replicaId} is not live`);
    replica.pause();
    this.pauses++;
    this.options.log(`SIGSTOP ${replica.replicaId} (pid ${replica.pid}) for ${ms} ms`);
    await sleep(ms);
    replica.resume();
    this.options.log(`SIGCONT ${replica.replicaId}`);
  }

  /** Starts a new process in an empty slot, under the slot's first id or a new one; waits until ready. */
  async restart(slot: number, { newIdentity }: { newIdentity: boolean }): Promise<Replica> {
    if (this.slots[slot]) throw new Error(`slot ${slot} is running ${this.slots[slot].replicaId}`);
    const generation = ++this.generations[slot];
    const replicaId = newIdentity ? `${this.slotIds[slot]}-r${generation}` : this.slotIds[slot];
    const { databaseUrl, env, log } = this.options;
    const startedAt = Date.now();
    const replica = this.cluster.add({ replicaId, databaseUrl, env });
    await replica.waitReady();
    this.slots[slot] = replica;
    log(`${replica.replicaId} ready in slot ${slot + 1} after ${Date.now() - startedAt} ms`);
    return replica;
  }
}
