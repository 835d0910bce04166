import type { TestDatabase } from "@axiom-lattice/testing";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { call, eventually, expectOk } from "../harness/client";
import { langgraphCronConformance } from "../harness/langgraphCronCases";
import { langgraphConformance } from "../harness/langgraphConformance";
import { langgraphRunOptionsConformance } from "../harness/langgraphRunOptionsCases";
import { langgraphStoreConformance } from "../harness/langgraphStoreCases";
import { langgraphRunControlConformance } from "../harness/langgraphRunControlCases";
import { langgraphThreadConformance } from "../harness/langgraphThreadCases";
import { langgraphVersionConformance } from "../harness/langgraphVersionCases";
import { GRAPH, type StreamedEvent, collect, eventNames, freshTenant, say, sdkClient, transcript } from "../harness/langgraphSdk";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { Replica, printLogsOnFailure, startReplicas } from "../harness/replica";
import { createScenarioDatabase } from "../harness/cluster";

// Issue 24: the official @langchain/langgraph-sdk client, unmodified, against the gateway's LangGraph
// API. The same conformance cases run on one gateway in memory (24-langgraph-sdk.test.ts) and on three
// replicas on PostgreSQL behind the documented nginx (here), which adds what only several replicas can
// show. Two files, so that the e2e suite can run them at the same time.

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 24 on replicas needs nginx, which is not installed; CI installs it");

describe.skipIf(nginxMissing)("scenario 24: the LangGraph SDK against three replicas on PostgreSQL, behind nginx", () => {
  let database: TestDatabase;
  let replicas: Replica[] = [];
  let balancer: LoadBalancer;

  beforeAll(async () => {
    database = await createScenarioDatabase("lattice_e2e_langgraph");
    // A short run lease: a replica killed below hands its runs over within seconds.
    replicas = await startReplicas(3, { databaseUrl: database.url, env: { AXIOM_RUN_LEASE_MS: "3000" } });
    balancer = await LoadBalancer.start(replicas);
  });
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await database?.drop();
  });

  const target = () => {
    printLogsOnFailure(() => replicas);
    return { url: balancer.url };
  };

  langgraphConformance(target);
  langgraphRunOptionsConformance(target);
  langgraphStoreConformance(target);
  langgraphRunControlConformance(target);
  langgraphCronConformance(target);
  langgraphThreadConformance(target);
  langgraphVersionConformance(target);

  /** A tenant with an assistant, and a background run of `text` on a thread, through nginx. */
  const backgroundRun = async (name: string, text: string, streamMode: Array<"values" | "updates"> = ["values", "updates"]) => {
    const tenant = freshTenant(name);
    const client = await sdkClient(target().url, tenant);
    const { assistant_id } = await client.assistants.create({ graphId: GRAPH });
    const { thread_id } = await client.threads.create();
    const run = await client.runs.create(thread_id, assistant_id, { input: say(text), streamMode });
    return { tenant, client, threadId: thread_id, runId: run.run_id };
  };

  /** The replica running the thread now (from the /api dialect's view of its queue). */
  const runningReplica = (tenant: string, threadId: string) =>
    eventually(async () => {
      const queue = await expectOk<{ owner: string | null; processing: unknown[] }>(call(balancer.url, "GET", `/api/threads/${threadId}/queue`, undefined, { "x-tenant-id": tenant }));
      return queue.owner && queue.processing.length > 0 ? queue.owner : undefined;
    });

  it("every replica streams any run, from its start or after a Last-Event-ID another replica sent", async () => {
    const { tenant, client, threadId, runId } = await backgroundRun("every-replica", "/sleep 600");
    await client.runs.join(threadId, runId);
    const streams: StreamedEvent[][] = [];
    for (const replica of replicas) streams.push(await collect((await sdkClient(replica.url, tenant)).runs.joinStream(threadId, runId)));
    expect(eventNames(streams[0])).toEqual(["metadata", "values", "updates", "values"]);
    expect(streams[1]).toEqual(streams[0]);
    expect(streams[2]).toEqual(streams[0]);

    // Followed live on one replica up to its first graph event, then resumed on another.
    const live = await backgroundRun("resume-elsewhere", "/sleep 1500");
    const [first, second] = await Promise.all([sdkClient(replicas[0].url, live.tenant), sdkClient(replicas[1].url, live.tenant)]);
    const head: StreamedEvent[] = [];
    for await (const { event, data, id } of first.runs.joinStream(live.threadId, live.runId)) {
      head.push({ event, data, ...(id === undefined ? {} : { id }) });
      if (event === "values") break;
    }
    const rest = await collect(second.runs.joinStream(live.threadId, live.runId, { lastEventId: head.at(-1)!.id }));
    expect(eventNames([...head, ...rest])).toEqual(["metadata", "values", "updates", "values"]);
  });

  it("cancel from a replica that does not run the run stops it (run control reaches the run wherever it runs)", async () => {
    const { tenant, client, threadId, runId } = await backgroundRun("cancel-elsewhere", "/sleep 20000");
    const owner = await runningReplica(tenant, threadId);
    const elsewhere = replicas.find((replica) => replica.replicaId !== owner)!;
    await (await sdkClient(elsewhere.url, tenant)).runs.cancel(threadId, runId, true);
    expect((await client.runs.get(threadId, runId)).status).toBe("interrupted");
  });

  it("a stream served by a replica that shuts down is never ended early: cut once the shutdown's grace is over, the SDK resumes it at Location (through nginx) to the run's end", async () => {
    // A fourth replica on the same database, outside nginx: the stream starts there, its resumption goes through nginx.
    // Its shutdown grace is far shorter than the run: its open streams are cut, not finished. An api
    // replica, so that it never runs the run itself (a peer woken late could leave it the claim).
    const leaving = new Replica({ replicaId: "leaving", databaseUrl: database.url, env: { AXIOM_RUN_LEASE_MS: "3000", AXIOM_SHUTDOWN_TIMEOUT_MS: "300", AXIOM_ROLE: "api" } });
    try {
      await leaving.waitReady();
      const { tenant, client, threadId, runId } = await backgroundRun("server-leaves", "/sleep 6000");
      const served: string[] = [];
      const viaLeaving = new Client({
        apiUrl: leaving.url,
        apiKey: await tokenFor(tenant),
        callerOptions: {
          fetch: (input: string | URL | Request, init?: RequestInit) => {
            const resuming = new Headers(init?.headers).has("last-event-id");
            const url = resuming ? String(input).replace(leaving.url, balancer.url) : String(input);
            served.push(resuming ? "nginx" : "leaving");
            return fetch(url, init);
          },
        },
      });
      const stream = viaLeaving.runs.joinStream(threadId, runId) as AsyncGenerator<{ event: string; data: unknown; id?: string }>;
      const events: StreamedEvent[] = [];
      for (;;) {
        const { value } = await stream.next();
        events.push({ event: value.event, data: value.data });
        if (value.event === "values") break;
      }
      await leaving.stop("SIGTERM");
      for await (const { event, data } of { [Symbol.asyncIterator]: () => stream }) events.push({ event, data });
      expect(eventNames(events)).toEqual(["metadata", "values", "updates", "values"]);
      expect(served).toEqual(["leaving", "nginx"]);
      expect(transcript(events.at(-1)!.data)).toEqual(["human:/sleep 6000", "ai:echo: /sleep 6000"]);
      expect((await client.runs.get(threadId, runId)).status).toBe("success");
    } finally {
      await leaving.stop("SIGKILL");
    }
  });

  // Kills the replica running a run: the next case still has two replicas.
  it("a stream followed on another replica goes on across the run's takeover when its running replica dies: the new owner's events to the run's end, no id twice", async () => {
    const { tenant, client, threadId, runId } = await backgroundRun("owner-dies", "/sleep 8000");
    const owner = await runningReplica(tenant, threadId);
    const follower = replicas.find((replica) => replica.replicaId !== owner)!;
    const stream = (await sdkClient(follower.url, tenant)).runs.joinStream(threadId, runId) as AsyncGenerator<{ event: string; data: unknown; id?: string }>;
    const events: StreamedEvent[] = [];
    for (;;) {
      const { value } = await stream.next();
      events.push({ event: value.event, data: value.data, ...(value.id === undefined ? {} : { id: value.id }) });
      if (value.event === "values") break;
    }
    // The run is in its sleep, unfinished: its replica dies, a peer takes the thread over once the lease lapses.
    await replicas.find((replica) => replica.replicaId === owner)!.stop("SIGKILL");
    for await (const { event, data, id } of { [Symbol.asyncIterator]: () => stream }) events.push({ event, data, ...(id === undefined ? {} : { id }) });

    // One stream, from the follower, to the run's end, no error: the re-run's events follow (its first
    // values again: the state it resumed from), under ids past every id the dead attempt could have sent.
    expect(eventNames(events)).toEqual(["metadata", "values", "values", "updates", "values"]);
    expect(transcript(events.at(-1)!.data)).toEqual(["human:/sleep 8000", "ai:echo: /sleep 8000"]);
    // The graph events' ids are the run's, increasing across the takeover.
    const ids = events.filter((event) => event.id && event.event !== "metadata").map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[1]).toBeGreaterThan(ids[0] + 1);
    expect((await client.runs.get(threadId, runId)).status).toBe("success");
  });

  // Last: it kills a replica of the block's cluster.
  it("a stream whose replica dies is resumed by the SDK on another replica (Location and Last-Event-ID), without a lost or repeated event", async () => {
    const { tenant, threadId, runId } = await backgroundRun("replica-dies", "/sleep 8000");
    const owner = await runningReplica(tenant, threadId);
    const servedBy: string[] = [];
    const client = await sdkClient(balancer.url, tenant, {
      onResponse: (response) => {
        if (new URL(response.url).pathname.endsWith(`/runs/${runId}/stream`)) servedBy.push(response.headers.get("x-axiom-replica") ?? "?");
      },
    });
    // A stream served by a replica that does not run the thread (round-robin: a few tries at most),
    // so that killing it leaves the run going.
    let events: StreamedEvent[] = [];
    let stream: AsyncGenerator<{ event: string; data: unknown; id?: string }> | undefined;
    for (let attempt = 0; attempt < 6 && !stream; attempt++) {
      const candidate = client.runs.joinStream(threadId, runId) as AsyncGenerator<{ event: string; data: unknown; id?: string }>;
      const first = await candidate.next();
      if (servedBy.at(-1) !== owner) {
        stream = candidate;
        events.push(first.value as StreamedEvent);
      } else {
        await candidate.return(undefined);
      }
    }
    expect(stream, "a stream served by a replica that does not run the thread").toBeDefined();
    const server = replicas.find((replica) => replica.replicaId === servedBy.at(-1))!;
    for (;;) {
      const next = await stream!.next();
      events.push(next.value as StreamedEvent);
      if (next.value?.event === "values") break;
    }
    await server.stop("SIGKILL");
    for await (const event of { [Symbol.asyncIterator]: () => stream! }) events.push({ event: event.event, data: event.data, ...(event.id === undefined ? {} : { id: event.id }) });

    events = events.map(({ event, data, id }) => ({ event, data, ...(id === undefined ? {} : { id }) }));
    expect(eventNames(events)).toEqual(["metadata", "values", "updates", "values"]);
    // Reconnected to a live replica, which went on after the last id received.
    expect(servedBy.length).toBeGreaterThanOrEqual(2);
    expect(servedBy.at(-1)).not.toBe(server.replicaId);
    // The graph events' ids are the run's.
    const ids = events.filter((event) => event.id && event.event !== "metadata").map((event) => Number(event.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
