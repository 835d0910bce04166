import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { eventually } from "./client";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, freshTenant, refusal, say, sdkClient, tenantWithAssistant, transcript } from "./langgraphSdk";

/** Whether the thread is gone (the SDK's get refused with 404). */
const gone = (get: Promise<unknown>) => get.then(
  () => false,
  (error: { status?: number }) => error.status === 404,
);

/**
 * A thread's lifecycle through the SDK: its `ttl` (deleted by the maintenance leader's sweep once it
 * ran out), its creation with prior state (`supersteps`), and its deletion with its assistant
 * (`deleteThreads`). The same cases on every target (behind nginx, each request may reach another replica).
 */
export function langgraphThreadConformance(target: () => LanggraphTarget): void {
  it("threads: one created or updated with a ttl is deleted once it ran out, with its runs; one without lasts", async () => {
    const { client, assistantId } = await tenantWithAssistant(target().url, "thread-ttl");
    const brief = await client.threads.create({ ttl: 0.02 });
    await client.runs.wait(brief.thread_id, assistantId, { input: say("soon gone") });
    const lasting = await client.threads.create({ ttl: { ttl: 60, strategy: "delete" } });
    const forever = await client.threads.create();
    const updated = await client.threads.create();
    await client.threads.update(updated.thread_id, { metadata: { expiring: true }, ttl: 0.02 });

    // The maintenance leader sweeps every few seconds.
    await eventually(async () => ((await gone(client.threads.get(brief.thread_id))) && (await gone(client.threads.get(updated.thread_id))) ? true : undefined));
    expect(await refusal(client.runs.list(brief.thread_id))).toMatchObject({ status: 404 });
    expect((await client.threads.get(lasting.thread_id)).thread_id).toBe(lasting.thread_id);
    expect((await client.threads.get(forever.thread_id)).thread_id).toBe(forever.thread_id);

    const refused = await refusal(client.threads.create({ threadId: randomUUID(), ttl: { ttl: 5, strategy: "keep_latest" as "delete" } }));
    expect(refused).toMatchObject({ status: 422, body: { code: "NOT_SUPPORTED" } });
  });

  it("threads: created with supersteps, the thread has that state (one checkpoint per update) and a run goes on from it; a bad superstep creates nothing", async () => {
    const { client, assistantId } = await tenantWithAssistant(target().url, "thread-supersteps");
    const thread = await client.threads.create({
      metadata: { imported: true },
      supersteps: [
        { updates: [{ values: say("hello"), asNode: "agent" }] },
        { updates: [{ values: { messages: [{ role: "assistant", content: "hi there" }] }, asNode: "agent" }] },
      ],
    });
    expect(thread.metadata).toMatchObject({ imported: true });
    expect(transcript((await client.threads.getState(thread.thread_id)).values)).toEqual(["human:hello", "ai:hi there"]);
    expect(await client.threads.getHistory(thread.thread_id)).toHaveLength(2);
    expect(transcript(await client.runs.wait(thread.thread_id, assistantId, { input: say("go on") }))).toEqual(["human:hello", "ai:hi there", "human:go on", "ai:echo: go on"]);

    const threadId = randomUUID();
    const bad = await refusal(
      client.threads.create({
        threadId,
        supersteps: [{ updates: [{ values: say("fine"), asNode: "agent" }] }, { updates: [{ values: { messages: [{ role: "wizard", content: "x" }] }, asNode: "agent" }] }],
      }),
    );
    expect(bad).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST" } });
    expect(await gone(client.threads.get(threadId))).toBe(true);
  });

  it("assistants: delete with deleteThreads deletes the threads its runs used, in the caller's tenant only", async () => {
    const [tenant, otherTenant] = [freshTenant("delete-threads"), freshTenant("delete-threads-other")];
    const [client, other] = await Promise.all([sdkClient(target().url, tenant), sdkClient(target().url, otherTenant)]);
    const assistantId = randomUUID();
    await client.assistants.create({ graphId: GRAPH, assistantId });
    await other.assistants.create({ graphId: GRAPH, assistantId });
    const used = async (sdk: typeof client) => {
      const { thread_id } = await sdk.threads.create();
      await sdk.runs.wait(thread_id, assistantId, { input: say("hi") });
      return thread_id;
    };
    const [first, second, othersThread] = [await used(client), await used(client), await used(other)];
    const unused = (await client.threads.create()).thread_id;

    await client.assistants.delete(assistantId, { deleteThreads: true });
    expect([await gone(client.threads.get(first)), await gone(client.threads.get(second)), await gone(client.threads.get(unused))]).toEqual([true, true, false]);
    expect(await gone(client.assistants.get(assistantId))).toBe(true);
    expect((await other.threads.get(othersThread)).metadata).toMatchObject({ assistant_id: assistantId });
  });
}
