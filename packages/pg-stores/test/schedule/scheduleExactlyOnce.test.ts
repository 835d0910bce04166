// Exactly once across processes: three separate Node processes arm the same every-second cron
// schedule on one PostgreSQL database; every fire must run its handler once, on one replica.
import { eventually } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { Child } from "../support/children";
import { firesOf, recordFireTask, useFireDatabase } from "./support";

const db = useFireDatabase("lattice_schedule_once");

interface Attempt {
  runAt: number;
  won: boolean;
}

describe("DefaultScheduleClient on PostgreSQL across processes", { timeout: 60_000 }, () => {
  it("3 processes arm one every-second cron schedule: each fire runs exactly once, on consecutive seconds", async () => {
    const FIRES = 12;
    const taskId = "every-second";
    // Far enough ahead that the replicas are usually up before the first fire (a late one still joins).
    const firstFire = Math.ceil((Date.now() + 4_000) / 1_000) * 1_000;
    await db.store.save(recordFireTask(taskId, { executionType: "cron", cronExpression: "* * * * * *", nextRunAt: firstFire }));

    const replicas = ["r1", "r2", "r3"].map((replica) => new Child("scheduleReplica.mjs", { url: db.database.url, replica }));
    for (const child of replicas) expect(await child.next<{ armed: number }>("READY")).toMatchObject({ armed: 1 });

    await eventually(`${FIRES} fires`, async () => (await firesOf(db.pool, "fires", taskId)).length >= FIRES, { timeoutMs: 40_000, intervalMs: 200 });
    for (const child of replicas) child.go();
    const reports = await Promise.all(replicas.map((child) => child.result<{ attempts: Attempt[] }>()));

    const fires = await firesOf(db.pool, "fires", taskId);
    const starts = await firesOf(db.pool, "handler_starts", taskId);
    expect(await firesOf(db.pool, "duplicate_fires", taskId)).toEqual([]);
    // One handler start per fire: no fire ran twice, not even one that crashed midway.
    expect(starts.map((start) => start.fireAt)).toEqual(fires.map((fire) => fire.fireAt));
    // Consecutive seconds from the first scheduled fire: none skipped.
    expect(fires.map((fire) => fire.fireAt)).toEqual(fires.map((_, i) => firstFire + i * 1_000));
    expect((await db.store.get(taskId))?.runCount).toBe(fires.length);

    // Claims, as each process logged them: per fire exactly one win, by the replica that recorded it.
    const byFire = new Map<number, { winners: string[]; losers: number }>();
    reports.forEach(({ attempts }, index) => {
      for (const attempt of attempts) {
        const entry = byFire.get(attempt.runAt) ?? { winners: [], losers: 0 };
        if (attempt.won) entry.winners.push(`r${index + 1}`);
        else entry.losers += 1;
        byFire.set(attempt.runAt, entry);
      }
    });
    for (const fire of fires) expect(byFire.get(fire.fireAt)?.winners).toEqual([fire.replica]);
    const lost = [...byFire.values()].reduce((sum, entry) => sum + entry.losers, 0);
    // Real contention: on average at least one other process tried, and lost, each fire.
    expect(lost).toBeGreaterThanOrEqual(fires.length);
    console.info(
      `exactly-once: ${fires.length} fires, ${fires.length + lost} claim attempts (${lost} lost), wins per replica ${JSON.stringify(
        Object.fromEntries(["r1", "r2", "r3"].map((r) => [r, fires.filter((fire) => fire.replica === r).length])),
      )}`,
    );
  });
});
