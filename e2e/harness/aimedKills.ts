import type { Pool } from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import type { CheckpointBlocker } from "./checkpointBlocker";
import { eventually } from "./client";
import type { ThreadFeed } from "./messageFeeds";
import type { Replica } from "./replica";
import type { ReplicaFleet } from "./replicaFleet";
import { type HeldRun, holderReplicaId, isHeld, readRunLeases } from "./runLeases";

/** What an aimed kill needs: the fleet, the operator's SQL, and a log of what it did. */
export interface AimContext {
  fleet: ReplicaFleet;
  pool: Pool;
  log(line: string): void;
}

/** A run long enough for several lease renewals (the TTL is short in chaos). */
const LONG_RUN_MS = 1_900;
/** Precedes the long run so that it starts mid-tenure, out of phase with the lease's renewals. */
const LEAD_RUN_MS = 300;
/** How much longer than the lease the dead holder's claim must live for the kill to count. */
const MIN_CLAIM_OVERHANG_MS = 150;
const ATTEMPTS = 5;
/** Polling the lease row: the kill must land well within one renewal interval. */
const POLL_MS = 3;
/** Between the messages that wake the peers while the dead holder's lease expires. */
const WAKE_INTERVAL_MS = 50;

/**
 * Kills the replica running `text` after its model answered and before the step holding the answer
 * (its checkpoint and pending writes, one statement) commits, then restarts it. `text` must be answered
 * with text no other message in the database is answered with.
 */
export async function killAfterAnswerBeforeCheckpoint(
  { fleet, pool, log }: AimContext,
  blocker: CheckpointBlocker,
  feed: ThreadFeed,
  text: string,
  restart: { newIdentity: boolean },
): Promise<void> {
  let messageId = "";
  const slot = await blocker.holdCheckpoint(`echo: ${text}`, {
    send: async () => {
      messageId = (await feed.send(text)).messageId;
    },
    run: async (blockedPid) => {
      const leases = await readRunLeases(pool, feed.threadId, messageId);
      const victim = leases?.claimReplicaId ? fleet.byId(leases.claimReplicaId) : undefined;
      if (!victim) throw new Error(`no live replica holds the claim of ${messageId}: ${JSON.stringify(leases)}`);
      log(`aimed (answered, not checkpointed): ${feed.threadId} ${messageId} "${text}" on ${victim.replicaId}, checkpoint held in backend ${blockedPid}`);
      return fleet.kill(victim);
    },
  });
  await fleet.restart(slot, restart);
}

/**
 * Runs a long message on the thread and kills its replica right after the thread-run lease was
 * renewed; with `claimOutlivesLease`, also after the message's claim was renewed since, so the dead
 * holder's claim expires after its lease. Meanwhile it keeps queueing messages on the thread from the
 * moment the lease expires until the dead claim is gone, so a peer is woken to take the thread in
 * that window. Then restarts the replica.
 */
export async function killAfterLeaseRenewal(
  context: AimContext,
  feed: ThreadFeed,
  { claimOutlivesLease, newIdentity }: { claimOutlivesLease: boolean; newIdentity: boolean },
): Promise<void> {
  const { fleet, log } = context;
  const kind = claimOutlivesLease ? "claim renewed after the lease" : "lease renewed";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (claimOutlivesLease) await feed.send(`/sleep ${LEAD_RUN_MS}`);
    const { messageId } = await feed.send(`/sleep ${LONG_RUN_MS}`);
    const moment = await renewalMoment(context, feed.threadId, messageId, claimOutlivesLease);
    if (!moment) continue;
    const victim = fleet.byId(holderReplicaId(moment.leaseHolder));
    if (!victim) throw new Error(`lease holder ${moment.leaseHolder} of ${feed.threadId} is not live`);
    const overhang = Math.round(moment.claimExpiresMs - moment.leaseExpiresMs);
    log(`aimed (${kind}): ${feed.threadId} ${messageId} on ${victim.replicaId}, attempt ${attempt}: the claim expires ${overhang} ms after the lease`);
    const slot = await fleet.kill(victim);
    await wakePeersWhileClaimLives(context, feed, messageId, moment);
    await fleet.restart(slot, { newIdentity });
    return;
  }
  throw new Error(`aimed (${kind}) on ${feed.threadId}: no long run offered the moment in ${ATTEMPTS} attempts`);
}

/**
 * Watches the message's run for the moment to kill: its lease just renewed (and, with
 * `claimOutlivesLease`, its claim since, leaving the claim at least MIN_CLAIM_OVERHANG_MS longer to
 * live). Undefined when the run ends or changes hands first, or its two heartbeats are too close in
 * phase (the phase stays what it is for the whole run).
 */
async function renewalMoment({ pool }: AimContext, threadId: string, messageId: string, claimOutlivesLease: boolean): Promise<HeldRun | undefined> {
  const read = () => readRunLeases(pool, threadId, messageId);
  const start = await eventually(
    async () => {
      const run = await read();
      if (run?.status === "completed") return null;
      return isHeld(run) ? run : undefined;
    },
    60_000,
    `${messageId} runs`,
  );
  if (!start) return undefined;
  let leaseRenewed: HeldRun | undefined;
  for (;;) {
    await sleep(POLL_MS);
    const run = await read();
    if (!isHeld(run) || run.leaseHolder !== start.leaseHolder) return undefined;
    if (!leaseRenewed) {
      if (run.leaseRenewedMs === start.leaseRenewedMs) continue;
      if (!claimOutlivesLease) return run;
      leaseRenewed = run;
    } else if (run.claimExpiresMs > leaseRenewed.claimExpiresMs) {
      return run.claimExpiresMs - run.leaseExpiresMs >= MIN_CLAIM_OVERHANG_MS ? run : undefined;
    }
  }
}

/**
 * Queues messages on the thread (each wakes the replicas to try the thread's lease) from just before
 * the dead holder's lease expires until its claim has expired too, or is gone.
 */
async function wakePeersWhileClaimLives({ pool }: AimContext, feed: ThreadFeed, messageId: string, killed: HeldRun): Promise<void> {
  const from = killed.leaseExpiresMs - 100;
  const until = Math.max(killed.leaseExpiresMs, killed.claimExpiresMs) + 200;
  for (;;) {
    const run = await readRunLeases(pool, feed.threadId, messageId);
    if (!run || run.nowMs > until || run.status !== "processing" || run.claimReplicaId !== killed.claimReplicaId) return;
    if (run.nowMs >= from) await feed.send();
    await sleep(WAKE_INTERVAL_MS);
  }
}

/** Polling the run event log: the kill must land well within one batching interval (150 ms by default). */
const RUN_LOG_POLL_MS = 2;

/** The highest index logged for the message, or -1. */
async function lastLoggedIndex(pool: Pool, messageId: string): Promise<number> {
  const { rows } = await pool.query<{ last: number }>("SELECT COALESCE(max(event_index), -1) AS last FROM lattice_run_events WHERE message_id = $1", [messageId]);
  return rows[0].last;
}

/**
 * SIGKILLs `owner`, which runs `messageId`, right after a batch of its events was logged: a new row
 * of the run in `lattice_run_events`, after the first. Returns the last index logged before the kill.
 */
export async function killRightAfterRunEventFlush({ pool, log }: Pick<AimContext, "pool" | "log">, owner: Replica, messageId: string): Promise<number> {
  const first = await eventually(
    async () => {
      const last = await lastLoggedIndex(pool, messageId);
      return last >= 0 ? last : undefined;
    },
    30_000,
    `a first batch of ${messageId} logged`,
  );
  for (;;) {
    const last = await lastLoggedIndex(pool, messageId);
    if (last > first) {
      await owner.stop("SIGKILL");
      log(`aimed (right after a flush): ${owner.replicaId} killed running ${messageId}, index ${last} logged`);
      return last;
    }
    await sleep(RUN_LOG_POLL_MS);
  }
}

/**
 * SIGKILLs `owner`, which runs `messageId`, while `client` (reading the owner's buffer) holds at least
 * `streamed` events and more than the log does: events streamed that were never logged. Returns the
 * last index logged before the kill.
 */
export async function killBeforeRunEventFlush(
  { pool, log }: Pick<AimContext, "pool" | "log">,
  owner: Replica,
  messageId: string,
  client: { lastIndex(): number },
  streamed: number,
): Promise<number> {
  for (;;) {
    const last = await lastLoggedIndex(pool, messageId);
    if (client.lastIndex() >= streamed - 1 && client.lastIndex() > last) {
      await owner.stop("SIGKILL");
      // Whatever the owner logged in between is counted: its client's events beyond it were never logged.
      const logged = await lastLoggedIndex(pool, messageId);
      log(`aimed (before a flush): ${owner.replicaId} killed running ${messageId}, its client at ${client.lastIndex()}, index ${logged} logged`);
      return logged;
    }
    await sleep(RUN_LOG_POLL_MS);
  }
}
