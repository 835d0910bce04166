import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { EVERY_SECOND, runsByFire } from "../harness/langgraphCronCases";
import { GRAPH, freshTenant, say, sdkClient } from "../harness/langgraphSdk";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import type { Replica } from "../harness/replica";

// Issue 25: a LangGraph cron made through the SDK, behind nginx, on three replicas of one database.
// Every replica arms it; each fire runs on the one whose claim wins, so each fire queues one run.
// Counted from the runs themselves (their `cron_scheduled_at`) and from the scheduler's claims.
// Fast enough for a short test, slow enough that a loaded machine's pause does not pass for a dead
// claimer (a claim is taken back after three missed heartbeats).
const HEARTBEAT_MS = 1000;
const FIRES_BEFORE = 6;
const FIRES_AFTER = 4;

/** The cron's fires a replica claimed (its scheduler's `claim-won` lines), by scheduled time. */
const claimedFires = (replica: Replica, cronId: string) =>
  replica.logLines().filter((line) => line.phase === "schedule" && line.taskId === cronId && line.event === "claim-won").map((line) => Number(line.runAt));
const settledFires = (replica: Replica, cronId: string) =>
  replica.logLines().filter((line) => line.phase === "schedule" && line.taskId === cronId && line.event === "fire-settled").map((line) => Number(line.runAt));

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 26 needs nginx, which is not installed; CI installs it");

describe.skipIf(nginxMissing)("scenario 26: a LangGraph cron on three replicas behind nginx", () => {
  const cluster = useCluster();
  let balancer: LoadBalancer | undefined;
  afterEach(async () => {
    await balancer?.stop();
    balancer = undefined;
  });

  it("fires once per tick across the replicas, and goes on firing on the survivors when the replica that fired last is killed", async () => {
    const replicas = await cluster.start(3, { env: { AXIOM_SCHEDULE_HEARTBEAT_MS: String(HEARTBEAT_MS), AXIOM_MAINTENANCE_INTERVAL_MS: String(HEARTBEAT_MS) } });
    balancer = await LoadBalancer.start(replicas);
    const client = await sdkClient(balancer.url, freshTenant("cron-replicas"));
    const { assistant_id } = await client.assistants.create({ graphId: GRAPH });
    const { thread_id } = await client.threads.create();
    const cron = await client.crons.createForThread(thread_id, assistant_id, { schedule: EVERY_SECOND, input: say("tick"), multitaskStrategy: "enqueue" });
    const fires = async () => runsByFire(client, thread_id, cron.cron_id);
    await eventually(async () => ((await fires()).size >= FIRES_BEFORE ? true : undefined), 60_000, `${FIRES_BEFORE} fires`);

    // The replica that claimed the latest fire, killed once that fire settled, early in the second
    // before the next fire (so it dies between fires, not holding the next one's claim).
    const { victim, lastFire } = await eventually(async () => {
      const latest = replicas.map((replica) => ({ replica, fire: Math.max(...claimedFires(replica, cron.cron_id)) })).sort((a, b) => b.fire - a.fire)[0];
      const betweenFires = settledFires(latest.replica, cron.cron_id).includes(latest.fire) && Date.now() - latest.fire < 500;
      return betweenFires ? { victim: latest.replica, lastFire: latest.fire } : undefined;
    }, 30_000, "the latest fire settled, early in its second");
    await victim.stop("SIGKILL");
    const survivors = replicas.filter((replica) => replica !== victim);

    // Through nginx still (it skips the dead replica): the cron fires on the survivors.
    await eventually(async () => ([...(await fires()).keys()].filter((fire) => Date.parse(fire) > lastFire).length >= FIRES_AFTER ? true : undefined), 60_000, `${FIRES_AFTER} fires after the kill`);
    await client.crons.delete(cron.cron_id);
    await sleep(500);

    const byFire = await fires();
    const twice = [...byFire].filter(([, runs]) => runs.length !== 1).map(([fire, runs]) => `${fire}: ${runs.length} runs`);
    expect(twice, "fires that queued other than one run").toEqual([]);
    // A fire's run id is the fire's, so a double fire would still queue one run: the claims show it.
    const claims = replicas.flatMap((replica) => claimedFires(replica, cron.cron_id));
    expect(claims.filter((fire, index) => claims.indexOf(fire) !== index), "fires claimed by two replicas").toEqual([]);
    const after = [...byFire.keys()].map(Date.parse).filter((fire) => fire > lastFire);
    expect(after.length).toBeGreaterThanOrEqual(FIRES_AFTER);
    for (const fire of after) expect(survivors.some((replica) => claimedFires(replica, cron.cron_id).includes(fire)), new Date(fire).toISOString()).toBe(true);
    // Every replica took part before the kill or after it (round-robin claims are not promised, so only: more than one).
    expect(new Set(replicas.filter((replica) => claimedFires(replica, cron.cron_id).length > 0)).size).toBeGreaterThan(1);
  });
});
