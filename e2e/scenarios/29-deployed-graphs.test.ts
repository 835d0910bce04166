import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useCluster } from "../harness/cluster";
import { freshTenant, sdkClient } from "../harness/langgraphSdk";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { eventually } from "../harness/client";
import { runLog, runningReplica } from "../harness/runStreams";

// Issue 37: an operator's own graph (a langgraph.json) on 3 replicas on PostgreSQL behind the
// documented nginx, round-robin: every replica loads it, its graph id names its default assistant,
// and a run of it survives the SIGKILL of the replica running it: it completes once, each step in
// the state once, and a stream joined through the balancer goes on to the end.

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
const DEPLOYMENT = { AXIOM_LANGGRAPH_CONFIG: join(__dirname, "../fixtures/deployment/langgraph.json") };
const STEPS = (topic: string) => ["plan", "write", "check"].map((step) => `${step}:${topic}`);

describe.skipIf(nginxMissing)("scenario 29: an operator's graph on 3 replicas behind round-robin", () => {
  const cluster = useCluster();
  let balancer: LoadBalancer | undefined;

  afterEach(async () => {
    await balancer?.stop();
    balancer = undefined;
  });

  const behindBalancer = async (env: Record<string, string>) => {
    const replicas = await cluster.start(3, { env: { ...DEPLOYMENT, ...env } });
    balancer = await LoadBalancer.start(replicas);
    const tenant = freshTenant("graphs");
    return { replicas, tenant, client: await sdkClient(balancer.url, tenant), pool: await cluster.sql() };
  };

  it("with the default settings, runs the graph by its id from any replica, and reads its state from any", async () => {
    const { client } = await behindBalancer({});
    const found = await client.assistants.search({ graphId: "steps", metadata: { created_by: "system" } });
    expect(found).toHaveLength(1);
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "steps", { input: { topic: "calm" } });
    expect(values).toEqual({ topic: "calm", steps: STEPS("calm") });
    for (let i = 0; i < 3; i++) expect((await client.threads.getState(thread.thread_id)).values).toEqual({ topic: "calm", steps: STEPS("calm") });
  });

  it("SIGKILL of the replica running it mid-run: a peer finishes it once, and the joined stream carries each step once, to the end", async () => {
    const { replicas, client, pool } = await behindBalancer({ AXIOM_RUN_LEASE_MS: "3000" });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: { topic: "storm" }, config: { configurable: { step_ms: 1500 } }, streamMode: ["updates"] });
    const ownerId = await runningReplica(pool, run.run_id);
    const owner = replicas.find((replica) => replica.replicaId === ownerId)!;

    // Killed once the first step is checkpointed, inside the second. A stream the kill cuts (it was
    // served by the owner) is joined again after the last event it carried, as a client reconnects.
    const events: Array<{ id?: string; event: string; data: unknown }> = [];
    let lastEventId = "-1";
    for (let joins = 0; joins < 5; joins++) {
      try {
        for await (const event of client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId })) {
          if (event.id) lastEventId = event.id;
          events.push(event);
          if (event.event === "updates" && Object.keys(event.data as object).includes("plan") && owner.running) await owner.stop("SIGKILL");
        }
        break;
      } catch {
        // The replica serving the stream died: join again.
      }
    }

    const updates = events.filter((event) => event.event === "updates").map((event) => Object.keys(event.data as object)[0]);
    expect(updates).toEqual(["plan", "write", "check"]);
    expect(owner.running).toBe(false);
    const finished = await client.runs.get(thread.thread_id, run.run_id);
    expect(finished.status).toBe("success");
    expect((await client.runs.list(thread.thread_id)).map((listed) => listed.run_id)).toEqual([run.run_id]);
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({ topic: "storm", steps: STEPS("storm") });
    // The run's input went in once: one checkpoint of source "input" for it.
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(history.filter((snapshot) => snapshot.metadata?.source === "input")).toHaveLength(1);
  });

  it("a replica paused inside a step past its lease: a peer finishes the run once; woken, the paused one changes nothing", async () => {
    const { replicas, tenant, client: viaBalancer, pool } = await behindBalancer({ AXIOM_RUN_LEASE_MS: "3000" });
    const thread = await viaBalancer.threads.create();
    const run = await viaBalancer.runs.create(thread.thread_id, "steps", { input: { topic: "pause" }, config: { configurable: { step_ms: 2000 } } });
    const ownerId = await runningReplica(pool, run.run_id);
    const owner = replicas.find((replica) => replica.replicaId === ownerId)!;
    // A peer's own address: nginx would still send some requests to the frozen replica, which never answers them.
    const client = await sdkClient(replicas.find((replica) => replica !== owner)!.url, tenant);
    // Paused inside "write", once "plan" is checkpointed: its step, checkpoint and events are overdue when it wakes.
    await eventually(async () => ((await client.threads.getState<{ steps?: string[] }>(thread.thread_id)).values.steps?.length === 1 ? true : undefined), 15_000, "plan checkpointed");
    owner.pause();
    try {
      const finished = await eventually(async () => {
        const found = await client.runs.get(thread.thread_id, run.run_id);
        return found.status === "success" ? found : undefined;
      }, 30_000, "the run finished by a peer");
      expect(finished.status).toBe("success");
      const settled = async () => ({
        state: (await client.threads.getState(thread.thread_id)).values,
        checkpoints: (await pool.query("SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id LIKE $1 ORDER BY checkpoint_id", [`%${thread.thread_id}`])).rows,
        queue: (await pool.query("SELECT status, run_status, replica_id, attempts, finished_at FROM lattice_thread_message_queue WHERE id = $1", [run.run_id])).rows,
        log: await runLog(pool, run.run_id),
      });
      const before = await settled();
      expect(before.state).toEqual({ topic: "pause", steps: STEPS("pause") });
      expect(before.queue[0].replica_id).not.toBe(ownerId);

      owner.resume();
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(owner.running).toBe(true);
      expect(await settled()).toEqual(before);
    } finally {
      owner.resume();
    }
  });
});
