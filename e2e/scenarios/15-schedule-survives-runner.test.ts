import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";
import type { Replica } from "../harness/replica";
import { ASSISTANT, createThreads } from "../harness/workloads";

// Short heartbeats so the scenario runs in seconds: a fire is requeued three heartbeats after its
// runner went silent, on the maintenance pass, by whichever replica leads maintenance.
const HEARTBEAT_MS = 500;
const RUN_LEASE_MS = 1_000;
const SLOT_MS = 2_000;
/** Each fire's run sleeps this long: most of a slot, so a kill lands inside a fire. */
const FIRE_MS = 1_200;
/** Fires settled before the kill, and after it on the survivors. */
const FIRES_BEFORE = 2;
const FIRES_AFTER = 3;
/**
 * From the kill to a survivor's claim of the abandoned fire: staleness (3 heartbeats), a pass
 * (1), a maintenance takeover if the victim led it (lease of 3 plus a bid), with room for a loaded
 * machine. Without continuous maintenance the fire is never claimed again.
 */
const RESUME_BOUND_MS = 40 * HEARTBEAT_MS;

interface FireLine {
  event: string;
  taskId: string;
  runAt: number;
  time: number;
}

/** The schedule's fire events a replica logged: claims won (`claim-won`) and settlements (`settled` set). */
function fireLines(replica: Replica, taskId: string): FireLine[] {
  return replica.logLines().filter((line): line is Record<string, unknown> & FireLine => line.phase === "schedule" && line.taskId === taskId);
}
const claims = (replica: Replica, taskId: string) => fireLines(replica, taskId).filter((line) => line.event === "claim-won");
const settled = (replica: Replica, taskId: string) => fireLines(replica, taskId).filter((line) => "settled" in line);

/** The fire `replica` is inside (claimed, not settled) for at least `minMs`, if any. */
function fireInFlight(replica: Replica, taskId: string, minMs: number): FireLine | undefined {
  const done = new Set(settled(replica, taskId).map((line) => line.runAt));
  return claims(replica, taskId).find((claim) => !done.has(claim.runAt) && Date.now() - claim.time >= minMs);
}

describe("scenario 15: a schedule survives its runner", () => {
  const cluster = useCluster();

  it("kill -9 of the replica inside a cron fire, never restarted: slots before it fired once, firing resumes on the survivors within a few heartbeats", async () => {
    const replicas = await cluster.start(3, {
      env: { AXIOM_SCHEDULE_HEARTBEAT_MS: String(HEARTBEAT_MS), AXIOM_MAINTENANCE_INTERVAL_MS: String(HEARTBEAT_MS), AXIOM_RUN_LEASE_MS: String(RUN_LEASE_MS) },
    });
    await createThreads(replicas[0].url, ["ticks"]);
    const { id: taskId } = await expectOk<{ id: string }>(
      call(replicas[0].url, "POST", "/api/schedules", {
        task_type: "agent-message",
        cron_expression: "*/2 * * * * *",
        payload: { assistant_id: ASSISTANT, thread_id: "ticks", message: `/sleep ${FIRE_MS}` },
      }),
      201,
    );
    const settledCount = (among: Replica[]) => among.flatMap((replica) => settled(replica, taskId)).length;
    await eventually(async () => (settledCount(replicas) >= FIRES_BEFORE ? true : undefined), 30_000, `${FIRES_BEFORE} fires settled`);

    // The replica inside a fire, well into its run: kill it and leave it dead.
    const { victim, fire } = await eventually(
      async () => {
        for (const replica of replicas) {
          const inFlight = fireInFlight(replica, taskId, FIRE_MS / 4);
          if (inFlight) return { victim: replica, fire: inFlight };
        }
        return undefined;
      },
      30_000,
      "a replica inside a fire",
    );
    await victim.stop("SIGKILL");
    const killedAt = Date.now();
    const survivors = replicas.filter((replica) => replica !== victim);

    // The abandoned fire is claimed again on a survivor (same slot), then firing goes on.
    const reclaim = await eventually(
      async () =>
        survivors
          .flatMap((replica) => claims(replica, taskId).map((claim) => ({ ...claim, replicaId: replica.replicaId })))
          .find((claim) => claim.runAt === fire.runAt),
      RESUME_BOUND_MS + 10_000,
      "a survivor to claim the abandoned fire again",
    );
    expect(reclaim.time - killedAt).toBeLessThan(RESUME_BOUND_MS);
    await eventually(
      async () => (survivors.flatMap((replica) => settled(replica, taskId)).filter((line) => line.runAt > fire.runAt).length >= FIRES_AFTER ? true : undefined),
      30_000,
      `${FIRES_AFTER} fires after the killed one`,
    );
    await sleep(100);

    // Every slot fired once: one claim per slot (two for the killed one: the dead runner's and the
    // survivor's), slots contiguous every 2 s from the first.
    const allClaims = replicas.flatMap((replica) => claims(replica, taskId).map((claim) => ({ ...claim, replicaId: replica.replicaId })));
    const perSlot = new Map<number, string[]>();
    for (const claim of allClaims) perSlot.set(claim.runAt, [...(perSlot.get(claim.runAt) ?? []), claim.replicaId]);
    const slots = [...perSlot.keys()].sort((a, b) => a - b);
    expect(slots.every((slot, i) => i === 0 || slot - slots[i - 1] === SLOT_MS)).toBe(true);
    for (const slot of slots.filter((slot) => slot < fire.runAt)) expect(perSlot.get(slot)).toHaveLength(1);
    expect(perSlot.get(fire.runAt)).toEqual(expect.arrayContaining([victim.replicaId, reclaim.replicaId]));
    expect(perSlot.get(fire.runAt)).toHaveLength(2);
    for (const slot of slots.filter((slot) => slot > fire.runAt)) {
      expect(perSlot.get(slot)).toHaveLength(1);
      expect(perSlot.get(slot)![0]).not.toBe(victim.replicaId);
    }

    // And each fire's message ran once, successfully: the killed fire's too (taken over, not resent).
    const { runs } = await expectOk<{ runs: RunRecord[] }>(call(survivors[0].url, "GET", "/api/threads/ticks/runs"));
    const finished = runs.filter((run) => run.finished_at);
    const settledSlots = slots.filter((slot) => slot <= fire.runAt || survivors.some((replica) => settled(replica, taskId).some((line) => line.runAt === slot)));
    for (const slot of settledSlots) {
      const ofSlot = finished.filter((run) => run.message_id === `schedule.${taskId}.${slot}`);
      expect(ofSlot, `runs of slot ${new Date(slot).toISOString()}`).toEqual([expect.objectContaining({ status: "success" })]);
    }
    const schedule = await expectOk<{ status: string; last_error?: string }>(call(survivors[0].url, "GET", `/api/schedules/${taskId}`));
    expect(["pending", "running"]).toContain(schedule.status);
    expect(schedule.last_error).toBeUndefined();
  });
});
