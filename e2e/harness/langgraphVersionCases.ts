import { expect, it } from "vitest";
import type { LanggraphTarget } from "./langgraphConformance";
import { GRAPH, collect, eventNames, freshTenant, refusal, say, sdkClient, tenantWithAssistant } from "./langgraphSdk";

/**
 * Assistant versions through the SDK's `client.assistants.getVersions` / `setLatest`, a stateless
 * run joined by its id alone (`client.runs.joinStream(null, runId)`), and a run's `kwargs`: the same
 * cases on every target (behind nginx, each request may reach another replica).
 */
export function langgraphVersionConformance(target: () => LanggraphTarget): void {
  it("versions: each create and update is a version; setLatest makes an older one current, and runs use it", async () => {
    const client = await sdkClient(target().url, freshTenant("versions"));
    const created = await client.assistants.create({ graphId: GRAPH, name: "With echo", metadata: { stage: "draft" }, context: { tools: ["echo"] } });
    const id = created.assistant_id;
    expect(created.version).toBe(1);
    expect(await client.assistants.update(id, { name: "Bare", metadata: { stage: "live" }, context: { tools: [] } })).toMatchObject({ version: 2 });

    const versions = await client.assistants.getVersions(id);
    expect(versions.map((version) => [version.version, version.name])).toEqual([[2, "Bare"], [1, "With echo"]]);
    expect(versions[1]).toMatchObject({ assistant_id: id, graph_id: GRAPH, metadata: { stage: "draft" }, context: { tools: ["echo"] } });
    expect((await client.assistants.getVersions(id, { metadata: { stage: "draft" } })).map((version) => version.version)).toEqual([1]);
    expect((await client.assistants.getVersions(id, { limit: 1, offset: 1 })).map((version) => version.version)).toEqual([1]);

    const toolAnswer = async () => {
      const values = (await client.runs.wait(null, id, { input: say('/tool echo {"text":"ping"}') })) as { messages: Array<{ type: string; content: string }> };
      return values.messages.find((message) => message.type === "tool")?.content;
    };
    expect(await toolAnswer()).not.toBe("ping");
    const current = await client.assistants.setLatest(id, 1);
    expect(current).toMatchObject({ assistant_id: id, version: 1, name: "With echo", metadata: { stage: "draft" }, context: { tools: ["echo"] } });
    expect(await client.assistants.get(id)).toMatchObject({ version: 1, name: "With echo" });
    expect(await toolAnswer()).toBe("ping");

    // The next update numbers past the highest version, not the current one.
    expect(await client.assistants.update(id, { name: "Third" })).toMatchObject({ version: 3, metadata: { stage: "draft" } });
    expect(await refusal(client.assistants.setLatest(id, 9))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    const stranger = await sdkClient(target().url, freshTenant("versions-stranger"));
    expect(await refusal(stranger.assistants.getVersions(id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("stateless runs: joinStream(null, runId) follows a run by its id alone, whole or after a Last-Event-ID", async () => {
    const { client, assistantId } = await tenantWithAssistant(target().url, "threadless-join");
    // Streamed without a thread, kept once ended (onCompletion is not in the SDK's types for a stateless
    // stream, but it is sent), and left after its first event: the run goes on.
    const keep: object = { onCompletion: "keep" };
    const leaving = new AbortController();
    let runId = "";
    for await (const part of client.runs.stream(null, assistantId, { input: say("/drip 30 one two three"), streamMode: ["values", "updates"], signal: leaving.signal, ...keep })) {
      runId = (part.data as { run_id: string }).run_id;
      leaving.abort();
      break;
    }
    const whole = await collect(client.runs.joinStream(null, runId));
    expect(eventNames(whole)).toEqual(["metadata", "values", "updates", "values"]);
    expect(whole[0]!.data).toMatchObject({ run_id: runId });
    const afterFirst = await collect(client.runs.joinStream(null, runId, { lastEventId: whole[1]!.id }));
    expect(eventNames(afterFirst)).toEqual(["updates", "values"]);
    expect(eventNames(await collect(client.runs.joinStream(null, runId, { streamMode: "updates" })))).toEqual(["metadata", "updates"]);
    const stranger = await sdkClient(target().url, freshTenant("threadless-stranger"));
    await expect(collect(stranger.runs.joinStream(null, runId))).rejects.toThrow(/404|not found/i);
  });

  it("run kwargs: a run lists what it was created with, the nodes it pauses at and the checkpoint it starts from included", async () => {
    const { client, assistantId } = await tenantWithAssistant(target().url, "run-kwargs");
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, assistantId, { input: say("first") });
    const { checkpoint } = await client.threads.getState(thread_id);
    await client.runs.wait(thread_id, assistantId, { input: say('/tool echo {"text":"ping"}'), interruptBefore: ["tools"], checkpointId: checkpoint.checkpoint_id! });
    const [paused] = await client.runs.list(thread_id);
    expect(paused).toMatchObject({
      kwargs: {
        input: say('/tool echo {"text":"ping"}'),
        interrupt_before: ["tools"],
        interrupt_after: null,
        config: { configurable: { checkpoint_id: checkpoint.checkpoint_id } },
        stream_mode: ["values"],
      },
    });
    await client.runs.wait(thread_id, assistantId, { input: null, interruptAfter: "*" });
    expect((await client.runs.list(thread_id, { limit: 1 }))[0]).toMatchObject({ kwargs: { input: null, interrupt_before: null, interrupt_after: "*" } });
  });
}
