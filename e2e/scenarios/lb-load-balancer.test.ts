import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunRecord, call, eventually, expectOk, parseSse } from "../harness/client";
import { useCluster } from "../harness/cluster";
import { DOCUMENTED_NGINX_CONF, LoadBalancer, findNginx } from "../harness/loadBalancer";
import { ASSISTANT, createThreads, enqueueAcross, expectProcessedOnceInOrder, runTurn, startLongRun, waitUntilReleased } from "../harness/workloads";

// Outside CI a machine without nginx skips these scenarios (scripts/test.sh never installs software
// there); in CI (CI=true) nginx is installed first, and a missing nginx fails them.
const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) {
  console.warn("SKIPPED: the load-balancer scenarios need nginx, which is not installed (e.g. `apt-get install nginx`); CI installs it");
}

describe("the documented deployment", () => {
  it("names the same replica ids in docs/deployment.md as the nginx.conf routes on the affinity header", () => {
    const config = readFileSync(DOCUMENTED_NGINX_CONF, "utf8");
    const mapBlock = /map \$http_x_axiom_affinity \$lattice_upstream \{([^}]*)\}/.exec(config)?.[1] ?? "";
    const routed = [...mapBlock.matchAll(/^\s*([\w.:@-]+)\s+lattice_replica_\d+;/gm)].map((match) => match[1]);
    expect(routed).toEqual(["replica-1", "replica-2", "replica-3"]);
    for (const file of [resolve(__dirname, "../../docs/deployment.md"), DOCUMENTED_NGINX_CONF]) {
      // Worker replicas serve no API: the balancer never sends them a request, so their ids are not routed.
      const named = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !line.includes("AXIOM_ROLE=worker"))
        .flatMap((line) => [...line.matchAll(/AXIOM_REPLICA_ID=([\w.:@-]+)/g)].map((match) => match[1]));
      expect(named.length, file).toBeGreaterThan(0);
      expect(routed, file).toEqual(expect.arrayContaining(named));
    }
  });
});

/** Scenarios 3, 4 and 5 again, with every request going through nginx configured by docs/nginx/nginx.conf. */
describe.skipIf(nginxMissing)("behind the documented nginx load balancer", () => {
  const cluster = useCluster();
  let balancer: LoadBalancer | undefined;

  const startBehindBalancer = async () => {
    const replicas = await cluster.start(3);
    balancer = await LoadBalancer.start(replicas);
    return { replicas, lb: balancer.url };
  };

  const stopBalancer = async () => {
    await balancer?.stop();
    balancer = undefined;
  };

  it("scenario 3: queued messages are processed exactly once, in order", async () => {
    try {
      const { replicas, lb } = await startBehindBalancer();
      const threadIds = Array.from({ length: 10 }, (_, i) => `lb-thread-${i}`);
      await createThreads(lb, threadIds);
      await enqueueAcross([lb], threadIds, 10);
      const servedBy = await expectProcessedOnceInOrder(lb, threadIds, 10, replicas.map((replica) => replica.replicaId));
      expect(Object.values(servedBy).reduce((a, b) => a + b, 0)).toBe(100);
    } finally {
      await stopBalancer();
    }
  });

  it("scenario 4: the affinity header routes a stream to the replica running the thread", async () => {
    try {
      const { lb } = await startBehindBalancer();
      await createThreads(lb, ["lb-owned"]);
      const owner = await startLongRun(lb, "lb-owned", "long", 2_000);

      const routed = await call(
        lb,
        "POST",
        "/api/runs",
        { assistant_id: ASSISTANT, thread_id: "lb-owned", message: "second", message_id: "second", mode: "stream" },
        { "x-axiom-affinity": owner },
      );
      expect(routed.headers.get("x-axiom-replica")).toBe(owner);
      expect(routed.headers.get("x-axiom-affinity-echo")).toBe(owner);
      const events = parseSse(routed.text);
      expect(events.map((event) => event.type)).not.toContain("affinity_miss");
      expect(events.at(-1)).toMatchObject({ type: "message_completed" });

      const runs = await eventually(async () => {
        const { runs } = await expectOk<{ runs: RunRecord[] }>(call(lb, "GET", "/api/threads/lb-owned/runs"));
        return runs.length === 2 ? runs : undefined;
      });
      expect(runs.every((run) => run.replica_id === owner && run.status === "success")).toBe(true);
    } finally {
      await stopBalancer();
    }
  });

  it("scenario 5: a conversation continues whichever replica serves the next turn", async () => {
    try {
      const { replicas, lb } = await startBehindBalancer();
      await createThreads(lb, ["lb-shared"]);
      await runTurn(lb, "lb-shared", "turn one", "turn-1", { "x-axiom-affinity": replicas[0].replicaId });
      await waitUntilReleased(lb, "lb-shared");
      expect(await runTurn(lb, "lb-shared", "turn two", "turn-2", { "x-axiom-affinity": replicas[1].replicaId })).toEqual([
        "turn one",
        "echo: turn one",
        "turn two",
        "echo: turn two",
      ]);
    } finally {
      await stopBalancer();
    }
  });

  it("takes a killed replica out passively: every request through the balancer still answers 200 from a live replica", async () => {
    try {
      const { replicas, lb } = await startBehindBalancer();
      await replicas[1].stop("SIGKILL");
      // Round-robin would send every third request to the dead replica; nginx passes each one to the next.
      for (let i = 0; i < 9; i++) {
        const response = await call(lb, "GET", "/api/threads");
        expect(response.status, response.text).toBe(200);
        expect(response.headers.get("x-axiom-replica")).not.toBe(replicas[1].replicaId);
      }
    } finally {
      await stopBalancer();
    }
  });
});
