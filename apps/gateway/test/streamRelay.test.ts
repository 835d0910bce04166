// Two gateways on one database: a run's stream is served by either, with the ids the replica
// running it gave, through the run event log (issue 23). The owner serves from its buffer, the other
// from the log; a client sees no difference.
import { getThreadRunOwner } from "@axiom-lattice/core";
import type { RunEvent, RunOutcome } from "@axiom-lattice/protocols";
import { type SseEvent, type TestDatabase, eventually, followPostedSse, parseSse } from "@axiom-lattice/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayContext } from "../src/context/gatewayContext";
import { buildTestGateway, createMigratedTestDatabase } from "./support";

const ASSISTANT = "echo";
const run = (threadId: string, fields: Record<string, unknown>) => ({ assistant_id: ASSISTANT, thread_id: threadId, ...fields });
const fiftyWords = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");

interface Replica {
  app: FastifyInstance;
  context: GatewayContext;
  post(url: string, payload: unknown): Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>;
  /** Batches appended to the run event log by this replica, per message. */
  appends: Map<string, number>;
  /** Events of each message in the log when this replica completed it. */
  loggedAtCompletion: Map<string, number>;
  /** Events each message's completion logged with its outcome. */
  loggedByCompletion: Map<string, RunEvent[]>;
}

let database: TestDatabase;
const replicas: Replica[] = [];

async function replica(replicaId: string): Promise<Replica> {
  const appends = new Map<string, number>();
  const loggedAtCompletion = new Map<string, number>();
  const loggedByCompletion = new Map<string, RunEvent[]>();
  const { app, context } = await buildTestGateway(
    { DATABASE_URL: database.url, AXIOM_REPLICA_ID: replicaId },
    {
      // The runtime holds these very objects: counting on them sees its every append and completion.
      prepare: ({ stores }) => {
        const { runEvents, queue } = stores;
        const append = runEvents.append.bind(runEvents);
        runEvents.append = async (ref, events) => {
          appends.set(ref.messageId, (appends.get(ref.messageId) ?? 0) + 1);
          return append(ref, events);
        };
        const countLogged = async (messageId: string, outcome: RunOutcome) => {
          const scope = (await queue.getMessage(messageId, { tenantId: "default", assistantId: ASSISTANT }))!;
          const logged = await runEvents.read({ tenantId: "default", assistantId: ASSISTANT, threadId: scope.threadId, messageId }, -1, 10_000);
          loggedAtCompletion.set(messageId, logged.length);
          loggedByCompletion.set(messageId, outcome.events ?? []);
        };
        // A completion goes alone, or with the thread's next claim.
        const complete = queue.completeMessage.bind(queue);
        queue.completeMessage = async (messageId, owner, outcome) => {
          await countLogged(messageId, outcome);
          return complete(messageId, owner, outcome);
        };
        const completeAndClaim = queue.completeAndClaimNext.bind(queue);
        queue.completeAndClaimNext = async (thread, messageId, outcome, options) => {
          await countLogged(messageId, outcome);
          return completeAndClaim(thread, messageId, outcome, options);
        };
      },
    },
  );
  const post = (url: string, payload: unknown) =>
    app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });
  const created = { app, context, post, appends, loggedAtCompletion, loggedByCompletion };
  replicas.push(created);
  return created;
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  a = await replica("gw-a");
  b = await replica("gw-b");
  expect((await a.post("/api/assistants", { id: ASSISTANT, name: "Echo" })).statusCode).toBe(201);
});

afterAll(async () => {
  for (const { app, context } of replicas) {
    await app.close();
    await context.close();
  }
  await database.drop();
});

const newThread = async (threadId: string) => expect((await a.post("/api/threads", { thread_id: threadId, assistant_id: ASSISTANT })).statusCode).toBe(201);
const events = (response: { body: string }): SseEvent[] => parseSse(response.body);
const indexOf = (event: SseEvent) => Number(event.id!.split(":").at(-1));
const loggedEvents = (threadId: string, messageId: string): Promise<RunEvent[]> =>
  b.context.stores.runEvents.read({ tenantId: "default", assistantId: ASSISTANT, threadId, messageId }, -1, 10_000);

/** Resolves once `replicaId` holds the thread's run lease. */
const owns = (replicaId: string, threadId: string) =>
  eventually(`${replicaId} running ${threadId}`, async () => (await getThreadRunOwner({ tenantId: "default", assistantId: ASSISTANT, threadId }, { store: b.context.stores.lease })) === replicaId);

describe("streams of a run on another replica, through the run event log", { timeout: 60_000 }, () => {
  it("resume_stream on B, started while A runs the message, answers exactly A's events under A's ids", async () => {
    await newThread("live");
    const onA = a.post("/api/runs", run("live", { message: "/sleep 1500", message_id: "live-1" }));
    await owns("gw-a", "live");
    const onB = await b.post("/api/runs/resume_stream", run("live", { message_id: "live-1" }));
    const fromA = events(await onA);

    expect(onB.headers["x-axiom-replica"]).toBe("gw-b");
    expect(fromA.at(-1)).toMatchObject({ type: "message_completed" });
    expect(fromA.map(indexOf)).toEqual(fromA.map((_, i) => i));
    expect(events(onB)).toEqual(fromA);
  });

  it("replays a finished run on B from the start and from a middle position, as A sent it; nothing A never sent", async () => {
    await newThread("done");
    const fromA = events(await a.post("/api/runs", run("done", { message: fiftyWords, message_id: "done-1" })));
    expect(fromA.length).toBeGreaterThan(50);

    expect(events(await b.post("/api/runs/resume_stream", run("done", { message_id: "done-1" })))).toEqual(fromA);
    // Before the log, B answered `after: 3` with a lone message_completed under `done-1:4`, an id A gave a word.
    const afterThree = events(await b.post("/api/runs/resume_stream", run("done", { message_id: "done-1", after: 3 })));
    expect(afterThree).toEqual(fromA.filter((event) => indexOf(event) > 3));
    expect(afterThree[0]).toMatchObject({ id: "done-1:4", type: "message_chunk" });

    // Every event was logged in few batches: those before the completion, then the rest (the outcome's
    // last) by the completion itself.
    const logged = await loggedEvents("done", "done-1");
    expect(logged.map((event) => event.index)).toEqual(fromA.map(indexOf));
    const byCompletion = a.loggedByCompletion.get("done-1")!;
    expect(a.loggedAtCompletion.get("done-1")! + byCompletion.length).toBe(fromA.length);
    expect(byCompletion.at(-1)).toMatchObject({ type: "message_completed", index: indexOf(fromA.at(-1)!) });
    expect(a.appends.get("done-1") ?? 0).toBeLessThanOrEqual(2);
    console.info(`run event log, 50-word answer: ${logged.length} rows, ${byCompletion.length} of them by the completion, ${a.appends.get("done-1") ?? 0} appends before`);
  });

  it('mode "stream" posted to B while A runs the thread streams A\'s answer from the log, as A streams it', async () => {
    await newThread("busy");
    const first = a.post("/api/runs", run("busy", { message: "/sleep 1500", message_id: "busy-1" }));
    await owns("gw-a", "busy");
    const onB = await b.post("/api/runs", run("busy", { message: fiftyWords, message_id: "busy-2" }));
    await first;

    const message = await b.context.stores.queue.getMessage("busy-2", { tenantId: "default", assistantId: ASSISTANT });
    expect(message).toMatchObject({ status: "completed", replicaId: "gw-a" });
    const fromB = events(onB);
    expect(fromB.map((event) => event.type)).not.toContain("affinity_miss");
    expect(fromB.at(-1)).toMatchObject({ type: "message_completed" });
    // A, the owner, serves it from its buffer.
    expect(events(await a.post("/api/runs/resume_stream", run("busy", { message_id: "busy-2" })))).toEqual(fromB);
  });

  it("a replica shutting down closes its streams; the client resumes on a peer with Last-Event-ID and sees the run handed over and resumed there", async () => {
    const leaving = await replica("gw-c");
    const url = await leaving.app.listen({ port: 0, host: "127.0.0.1" });
    await newThread("leaving");
    const text = `/drip 30 ${fiftyWords}`;
    const stream = await followPostedSse(`${url}/api/runs`, run("leaving", { message: text, message_id: "leaving-1" }));
    await eventually("a few words streamed", () => stream.ofType("message_chunk").length >= 5);

    // As SIGTERM does: the server closes (its streams end at once), then the runs are handed over.
    await leaving.app.close();
    await stream.ended;
    await leaving.context.close();
    const received = stream.events;
    expect(received.map((event) => event.type)).not.toContain("message_completed");

    const rest = events(await b.app.inject({
      method: "POST",
      url: "/api/runs/resume_stream",
      headers: { "content-type": "application/json", "last-event-id": received.at(-1)!.id! },
      payload: JSON.stringify(run("leaving", {})),
    }));
    const types = rest.map((event) => event.type);
    expect(rest[types.indexOf("run_handed_over")]).toMatchObject({ data: { code: "REPLICA_SHUTDOWN", replica: "gw-c" } });
    expect(rest[types.indexOf("run_resumed")]).toMatchObject({ data: { replica: expect.stringMatching(/^gw-[ab]$/), attempt: 2 } });
    expect(types.indexOf("run_resumed")).toBe(types.indexOf("run_handed_over") + 1);
    expect(types.at(-1)).toBe("message_completed");
    // Together, the run's log, each event once, ids increasing (its final event is logged just after the run completed).
    const whole = [...received, ...rest].map(indexOf);
    const logged = async () => (await loggedEvents("leaving", "leaving-1")).map((event) => event.index);
    await eventually("the final event logged", async () => (await logged()).length >= whole.length);
    expect(whole).toEqual(await logged());
  });

  it("deletes a thread's run events with the thread", async () => {
    expect(await loggedEvents("done", "done-1")).not.toEqual([]);
    expect((await b.app.inject({ method: "DELETE", url: "/api/threads/done" })).statusCode).toBe(204);
    expect(await loggedEvents("done", "done-1")).toEqual([]);
  });
});
