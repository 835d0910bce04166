import { expect, it } from "vitest";
import { tokenFor } from "./auth";
import { GRAPH, collect, eventNames, freshTenant, refusal, say, sdkClient, tenantWithAssistant, transcript, untilRunning } from "./langgraphSdk";

/** Where the cases run: the URL SDK clients are given (one gateway, or nginx before replicas). */
export interface LanggraphTarget {
  url: string;
}

/**
 * The conformance cases of the LangGraph API, driven by the real `@langchain/langgraph-sdk` client.
 * The same cases run on every target; each uses a tenant of its own. Where the gateway answers
 * otherwise than LangGraph Platform, the case says so (and docs/langgraph-api.md lists it).
 */
export function langgraphConformance(target: () => LanggraphTarget): void {
  const setUp = (name: string) => tenantWithAssistant(target().url, name);

  it("assistants: create (if_exists), read, update with versions, search with pagination, count, graph, schemas, delete", async () => {
    const { client } = await setUp("assistants");
    const created = await client.assistants.create({
      graphId: GRAPH,
      assistantId: "helper",
      name: "Helper",
      description: "answers",
      metadata: { team: "eu" },
      config: { tags: ["support"] },
      context: { model: { provider: "scripted", apiKey: "sk-never-shown" }, system_prompt: "Be brief.", tone: "dry" },
    });
    expect(created).toMatchObject({ assistant_id: "helper", graph_id: GRAPH, version: 1, metadata: { team: "eu" }, config: { tags: ["support"] } });
    expect(created.context).toMatchObject({ model: { provider: "scripted", apiKey: "***" }, system_prompt: "Be brief.", tone: "dry" });
    expect(await refusal(client.assistants.create({ graphId: GRAPH, assistantId: "helper" }))).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
    expect(await client.assistants.create({ graphId: GRAPH, assistantId: "helper", name: "Other", ifExists: "do_nothing" })).toMatchObject({ name: "Helper" });

    const updated = await client.assistants.update("helper", { metadata: { tier: "gold" }, name: "Helper 2" });
    expect(updated).toMatchObject({ name: "Helper 2", version: 2, metadata: { team: "eu", tier: "gold" } });
    expect(await client.assistants.get("helper")).toEqual(updated);

    const page = await client.assistants.search({ graphId: GRAPH, sortBy: "name", sortOrder: "asc", limit: 1, includePagination: true });
    expect(page.assistants.map((assistant) => assistant.name)).toEqual(["Echo"]);
    expect(page.next).toBe("1");
    expect((await client.assistants.search({ metadata: { tier: "gold" } })).map((assistant) => assistant.assistant_id)).toEqual(["helper"]);
    // Echo, helper, and the graph's default assistant (as LangGraph Platform makes one per graph).
    expect(await client.assistants.count({ graphId: GRAPH })).toBe(3);
    expect(await client.assistants.count({ name: "helper" })).toBe(1);

    const graph = await client.assistants.getGraph("helper");
    expect(graph.nodes.map((node) => node.id)).toEqual(["__start__", "agent", "tools", "__end__"]);
    expect(await client.assistants.getSchemas("helper")).toMatchObject({ graph_id: GRAPH, state_schema: { properties: { messages: expect.any(Object) } } });

    await client.assistants.delete("helper");
    expect(await refusal(client.assistants.get("helper"))).toEqual({ status: 404, body: { detail: "Assistant helper not found", code: "NOT_FOUND" } });
  });

  it("threads: create (if_exists, metadata), read, update, search by metadata, status and ids, delete", async () => {
    const { client, assistantId } = await setUp("threads");
    const thread = await client.threads.create({ threadId: "t-1", metadata: { user: "ann" } });
    expect(thread).toMatchObject({ thread_id: "t-1", status: "idle", metadata: { user: "ann" }, values: {} });
    expect(await refusal(client.threads.create({ threadId: "t-1" }))).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
    expect(await client.threads.create({ threadId: "t-1", ifExists: "do_nothing" })).toMatchObject({ thread_id: "t-1" });
    expect(await client.threads.update("t-1", { metadata: { plan: "pro" } })).toMatchObject({ metadata: { user: "ann", plan: "pro" } });

    const other = await client.threads.create({ metadata: { user: "bob" } });
    await client.runs.wait(other.thread_id, assistantId, { input: say("/interrupt ready?") });
    expect((await client.threads.search({ metadata: { user: "ann" } })).map((found) => found.thread_id)).toEqual(["t-1"]);
    expect((await client.threads.search({ status: "interrupted" })).map((found) => found.thread_id)).toEqual([other.thread_id]);
    expect((await client.threads.search({ ids: ["t-1", other.thread_id], sortBy: "thread_id", sortOrder: "asc" })).map((found) => found.thread_id)).toEqual(
      ["t-1", other.thread_id].sort(),
    );
    // Clients find a thread by the assistant that ran it.
    expect((await client.threads.search({ metadata: { assistant_id: assistantId } })).map((found) => found.thread_id)).toEqual([other.thread_id]);

    await client.threads.delete("t-1");
    expect(await refusal(client.threads.get("t-1"))).toEqual({ status: 404, body: { detail: "Thread t-1 not found", code: "NOT_FOUND" } });
  });

  it("streams a run in each mode: metadata first with the run id, the mode's events, to the close", async () => {
    const { client, assistantId } = await setUp("stream-modes");
    const { thread_id } = await client.threads.create();
    const created: string[] = [];
    const all = await collect(
      client.runs.stream(thread_id, assistantId, {
        input: say("hello big world"),
        streamMode: ["values", "updates", "messages-tuple", "custom"],
        onRunCreated: ({ run_id }) => created.push(run_id),
      }),
    );
    expect(all[0]).toEqual({ event: "metadata", id: "0", data: { run_id: created[0], attempt: 1 } });
    expect(eventNames(all)).toEqual(["metadata", "values", "messages", "messages", "messages", "messages", "updates", "values"]);
    const tokens = all.filter((event) => event.event === "messages").map((event) => (event.data as [{ content: string }, unknown])[0].content);
    expect(tokens.join("")).toBe("echo: hello big world");
    const [, metadata] = all[2].data as [unknown, Record<string, unknown>];
    expect(metadata).toMatchObject({ langgraph_node: "agent", thread_id, run_id: created[0] });
    expect(transcript(all.at(-1)!.data)).toEqual(["human:hello big world", "ai:echo: hello big world"]);

    const updates = await collect(client.runs.stream(thread_id, assistantId, { input: say('/tool echo {"text":"ping"}'), streamMode: "updates" }));
    expect(eventNames(updates)).toEqual(["metadata", "updates", "updates", "updates"]);
    expect(updates.slice(1, 4).map((event) => Object.keys(event.data as object)[0])).toEqual(["agent", "tools", "agent"]);

    // The default is values; `custom` is accepted, and the built-in graph emits no custom events.
    expect(eventNames(await collect(client.runs.stream(thread_id, assistantId, { input: say("again") })))).toEqual(["metadata", "values", "values"]);
    expect(eventNames(await collect(client.runs.stream(thread_id, assistantId, { input: say("quiet"), streamMode: "custom" })))).toEqual(["metadata"]);
  });

  it("stream mode messages: LangGraph Platform's messages/metadata, messages/partial (the message so far) and messages/complete (each message once)", async () => {
    const { client, assistantId } = await setUp("messages-mode");
    const { thread_id } = await client.threads.create();
    const events = await collect(client.runs.stream(thread_id, assistantId, { input: say("hello big world"), streamMode: "messages" }));
    expect(eventNames(events)).toEqual(["metadata", "messages/complete", "messages/metadata", ...Array(4).fill("messages/partial"), "messages/complete"]);
    const [human] = events[1].data as Array<{ type: string; content: string; id: string }>;
    expect(human).toMatchObject({ type: "human", content: "hello big world" });
    const answerId = Object.keys(events[2].data as object)[0];
    expect((events[2].data as Record<string, { metadata: unknown }>)[answerId].metadata).toMatchObject({ langgraph_node: "agent", thread_id, run_id: (events[0].data as { run_id: string }).run_id });
    // Each partial is the message so far, under one id; the complete one is the message as the state keeps it.
    const partials = events.slice(3, 7).map((event) => (event.data as Array<{ id: string; content: string }>)[0]);
    expect(partials.map((message) => message.id)).toEqual(Array(4).fill(answerId));
    expect(partials.map((message) => message.content)).toEqual(["echo:", "echo: hello", "echo: hello big", "echo: hello big world"]);
    expect(events[7].data).toEqual([expect.objectContaining({ type: "ai", id: answerId, content: "echo: hello big world" })]);

    // A tool's answer comes whole; a run's first values send the thread's messages it had not sent (as the platform does, each run afresh).
    const withTool = await collect(client.runs.stream(thread_id, assistantId, { input: say('/tool echo {"text":"ping"}'), streamMode: ["messages", "updates"] }));
    const completed = withTool.filter((event) => event.event === "messages/complete").flatMap((event) => event.data as Array<{ type: string; id: string }>);
    expect(completed.map((message) => message.type)).toEqual(["human", "ai", "human", "ai", "tool", "ai"]);
    expect(new Set(completed.map((message) => message.id)).size).toBe(completed.length);
    expect(eventNames(withTool).filter((name) => name === "updates")).toHaveLength(3);
  });

  it("waits for runs, runs in the background joined by join and joinStream (whole, and after a Last-Event-ID), and lists and reads them", async () => {
    const { client, assistantId } = await setUp("background");
    const { thread_id } = await client.threads.create();
    const waited = await client.runs.wait(thread_id, assistantId, { input: say("first") });
    expect(transcript(waited)).toEqual(["human:first", "ai:echo: first"]);

    const run = await client.runs.create(thread_id, assistantId, { input: say("second"), streamMode: ["updates", "values"], metadata: { source: "sdk" } });
    // Answered as the run is then: a replica may already have claimed (or even finished) it.
    expect(run).toMatchObject({ thread_id, assistant_id: assistantId, metadata: { source: "sdk" }, multitask_strategy: "reject" });
    expect(["pending", "running", "success"]).toContain(run.status);
    const joined = await client.runs.join(thread_id, run.run_id);
    expect(transcript(joined).slice(-2)).toEqual(["human:second", "ai:echo: second"]);

    const whole = await collect(client.runs.joinStream(thread_id, run.run_id));
    expect(eventNames(whole)).toEqual(["metadata", "values", "updates", "values"]);
    const onlyUpdates = await collect(client.runs.joinStream(thread_id, run.run_id, { streamMode: "updates" }));
    expect(eventNames(onlyUpdates)).toEqual(["metadata", "updates"]);
    const afterFirst = await collect(client.runs.joinStream(thread_id, run.run_id, { lastEventId: whole[1].id }));
    expect(eventNames(afterFirst)).toEqual(["updates", "values"]);

    const runs = await client.runs.list(thread_id);
    expect(runs.map((listed) => [listed.run_id === run.run_id, listed.status])).toEqual([
      [true, "success"],
      [false, "success"],
    ]);
    expect(await client.runs.get(thread_id, run.run_id)).toMatchObject({ run_id: run.run_id, status: "success", kwargs: { input: say("second"), stream_mode: ["updates", "values"] } });
    expect(await refusal(client.runs.get(thread_id, "no-such-run"))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("interrupt and Command resume: the run pauses, the thread is interrupted, a resume answers it (streamed and waited)", async () => {
    const { client, assistantId } = await setUp("interrupts");
    const { thread_id } = await client.threads.create();
    const asked = await collect(client.runs.stream(thread_id, assistantId, { input: say("/interrupt which colour?"), streamMode: ["values", "updates"] }));
    const [interrupt] = (asked.at(-1)!.data as { __interrupt__: Array<{ id: string; value: unknown }> }).__interrupt__;
    expect(interrupt).toEqual({ id: expect.any(String), value: "which colour?" });
    expect(asked.find((event) => event.event === "updates" && "__interrupt__" in (event.data as object))).toBeDefined();

    const paused = await client.threads.get(thread_id);
    expect(paused.status).toBe("interrupted");
    expect(Object.values(paused.interrupts)).toEqual([[interrupt]]);
    // LangGraph Platform's statuses: the run that paused ended well; the thread waits.
    expect((await client.runs.list(thread_id)).map((run) => run.status)).toEqual(["success"]);

    const answered = await collect(client.runs.stream(thread_id, assistantId, { command: { resume: "blue" }, streamMode: "updates" }));
    expect(answered.slice(1).map((event) => Object.keys(event.data as object)[0])).toEqual(["tools", "agent"]);
    expect((await client.threads.get(thread_id)).status).toBe("idle");

    const again = await client.runs.wait(thread_id, assistantId, { input: say("/interrupt and now?") });
    expect((again as { __interrupt__: Array<{ value: unknown }> }).__interrupt__[0].value).toBe("and now?");
    const resumed = await client.runs.wait(thread_id, assistantId, { command: { resume: "green" } });
    expect(transcript(resumed).at(-1)).toBe("ai:ask_human returned: green");
  });

  it("Command update and goto: messages added to the state, then the node named runs (none without goto)", async () => {
    const { client, assistantId } = await setUp("command");
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, assistantId, { input: say("first") });
    const updated = await client.runs.wait(thread_id, assistantId, { command: { update: { messages: [{ role: "user", content: "added" }] }, goto: "agent" } });
    expect(transcript(updated)).toEqual(["human:first", "ai:echo: first", "human:added", "ai:echo: added"]);
    // Without goto the graph has nothing to run: the state is updated, no node runs.
    const streamed = await collect(client.runs.stream(thread_id, assistantId, { command: { update: { messages: [{ role: "user", content: "noted" }] } }, streamMode: "updates" }));
    expect(eventNames(streamed)).toEqual(["metadata"]);
    expect(transcript((await client.threads.getState(thread_id)).values).slice(-2)).toEqual(["ai:echo: added", "human:noted"]);
    expect(await refusal(client.runs.create(thread_id, assistantId, { command: { goto: "planner" } }))).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST" } });
    expect(await refusal(client.runs.create(thread_id, assistantId, { command: { update: { messages: [{ role: "wizard", content: "x" }] } } }))).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST" } });
    expect(await client.runs.list(thread_id)).toHaveLength(3);
  });

  it("multitask strategies: reject answers 409, enqueue runs in order, interrupt stops the run in progress", async () => {
    const { client, assistantId } = await setUp("multitask");
    const { thread_id } = await client.threads.create();
    const long = await client.runs.create(thread_id, assistantId, { input: say("/sleep 5000") });
    const busy = await refusal(client.runs.create(thread_id, assistantId, { input: say("rejected") }));
    expect(busy).toEqual({ status: 409, body: { detail: "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.", code: "THREAD_BUSY" } });
    const queued = await client.runs.create(thread_id, assistantId, { input: say("queued"), multitaskStrategy: "enqueue" });
    expect((await client.threads.get(thread_id)).status).toBe("busy");
    await client.runs.join(thread_id, queued.run_id);
    const order = transcript((await client.threads.getState(thread_id)).values).filter((line) => line.startsWith("human:"));
    expect(order).toEqual(["human:/sleep 5000", "human:queued"]);
    expect((await client.runs.get(thread_id, long.run_id)).status).toBe("success");

    // interrupt: the run in progress stops, wherever it runs (behind round-robin, any replica takes the request).
    const first = await client.runs.create(thread_id, assistantId, { input: say("/sleep 5000") });
    await untilRunning(client, thread_id, first.run_id, "/sleep 5000");
    const instead = await client.runs.wait(thread_id, assistantId, { input: say("instead"), multitaskStrategy: "interrupt" });
    expect(transcript(instead).at(-1)).toBe("ai:echo: instead");
    expect((await client.runs.get(thread_id, first.run_id)).status).toBe("interrupted");
  });

  it("cancel: a queued run ends without running, a running one stops (wait), an ended one stays as it was", async () => {
    const { client, assistantId } = await setUp("cancel");
    const { thread_id } = await client.threads.create();
    const running = await client.runs.create(thread_id, assistantId, { input: say("/sleep 20000") });
    const queued = await client.runs.create(thread_id, assistantId, { input: say("never"), multitaskStrategy: "enqueue" });
    await client.runs.cancel(thread_id, queued.run_id);
    expect((await client.runs.get(thread_id, queued.run_id)).status).toBe("interrupted");
    await untilRunning(client, thread_id, running.run_id, "/sleep 20000");
    await client.runs.cancel(thread_id, running.run_id, true);
    expect((await client.runs.get(thread_id, running.run_id)).status).toBe("interrupted");
    await client.runs.cancel(thread_id, running.run_id, true);
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:/sleep 20000"]);
  });

  it("on_disconnect cancel: a stream's client that leaves cancels the run (also a join stream with cancelOnDisconnect); by default the run goes on", async () => {
    const { client, assistantId } = await setUp("disconnect");
    const { thread_id } = await client.threads.create();
    /** Streams `stream` up to its first `values`, then leaves (aborts the request); answers the run's id. */
    const leaveAfterFirstValues = async (stream: (signal: AbortSignal) => AsyncIterable<{ event: string; data: unknown }>) => {
      const controller = new AbortController();
      let runId: string | undefined;
      for await (const { event, data } of stream(controller.signal)) {
        if (event === "metadata") runId = (data as { run_id: string }).run_id;
        if (event === "values") break;
      }
      controller.abort();
      return runId!;
    };
    const finalStatus = (runId: string) => expect.poll(async () => (await client.runs.get(thread_id, runId)).status, { timeout: 20_000 });

    const cancelled = await leaveAfterFirstValues((signal) => client.runs.stream(thread_id, assistantId, { input: say("/sleep 20000"), onDisconnect: "cancel", signal }));
    await finalStatus(cancelled).toBe("interrupted");

    const kept = await leaveAfterFirstValues((signal) => client.runs.stream(thread_id, assistantId, { input: say("/sleep 1000"), signal }));
    await finalStatus(kept).toBe("success");

    const background = await client.runs.create(thread_id, assistantId, { input: say("/sleep 20000") });
    await leaveAfterFirstValues((signal) => client.runs.joinStream(thread_id, background.run_id, { cancelOnDisconnect: true, signal }));
    await finalStatus(background.run_id).toBe("interrupted");
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:/sleep 20000", "human:/sleep 1000", "ai:echo: /sleep 1000", "human:/sleep 20000"]);
  });

  it("a thread is not tied to an assistant: runs of two assistants share its queue and continue one history", async () => {
    const { client, assistantId } = await setUp("two-assistants");
    const { assistant_id: other } = await client.assistants.create({ graphId: GRAPH, name: "Other", context: { system_prompt: "Be other." } });
    const { thread_id } = await client.threads.create();
    const first = await client.runs.create(thread_id, assistantId, { input: say("/sleep 5000") });
    // One queue and one run lease per thread, whichever assistant runs: the second is refused, or waits its turn.
    expect(await refusal(client.runs.create(thread_id, other, { input: say("mine now") }))).toMatchObject({ status: 409, body: { code: "THREAD_BUSY" } });
    const second = await client.runs.create(thread_id, other, { input: say("mine now"), multitaskStrategy: "enqueue" });
    expect((await client.runs.get(thread_id, second.run_id)).status).toBe("pending");
    await client.runs.join(thread_id, second.run_id);
    expect(transcript((await client.threads.getState(thread_id)).values)).toEqual(["human:/sleep 5000", "ai:echo: /sleep 5000", "human:mine now", "ai:echo: mine now"]);
    const runs = await client.runs.list(thread_id);
    expect(runs.map((run) => [run.run_id, run.assistant_id])).toEqual([
      [second.run_id, other],
      [first.run_id, assistantId],
    ]);
    expect((await client.threads.get(thread_id)).metadata).toMatchObject({ assistant_id: other, graph_id: GRAPH });
  });

  it("state: read, written between runs, and its history, newest first, paged with before", async () => {
    const { client, assistantId } = await setUp("state");
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, assistantId, { input: say("first") });
    const state = await client.threads.getState(thread_id);
    expect(state).toMatchObject({ next: [], tasks: [], checkpoint: { thread_id, checkpoint_ns: "" }, metadata: { source: "loop" } });
    expect(transcript(state.values)).toEqual(["human:first", "ai:echo: first"]);

    // The SDK types the answer as a config; LangGraph Platform answers { checkpoint }: the gateway answers both.
    const { configurable } = await client.threads.updateState(thread_id, { values: { messages: [{ role: "user", content: "noted" }] }, asNode: "agent" });
    expect((await client.threads.getState(thread_id)).checkpoint.checkpoint_id).toBe(configurable?.checkpoint_id);
    const history = await client.threads.getHistory(thread_id, { limit: 3 });
    expect(history.map((entry) => entry.checkpoint.checkpoint_id)[0]).toBe(configurable?.checkpoint_id);
    expect(transcript(history[0].values).at(-1)).toBe("human:noted");
    const older = await client.threads.getHistory(thread_id, { limit: 1, before: { configurable: { checkpoint_id: history[1].checkpoint.checkpoint_id } } });
    expect(older[0].checkpoint.checkpoint_id).toBe(history[2].checkpoint.checkpoint_id);
    // The next run sees what was written.
    expect(transcript(await client.runs.wait(thread_id, assistantId, { input: say("and then") })).slice(-3)).toEqual(["human:noted", "human:and then", "ai:echo: and then"]);
  });

  it("stateless runs: streamed and waited on a thread of their own, which is deleted afterwards", async () => {
    const { client, assistantId } = await setUp("stateless");
    const streamed = await collect(client.runs.stream(null, assistantId, { input: say("alone"), streamMode: "updates" }));
    expect(eventNames(streamed)).toEqual(["metadata", "updates"]);
    const { thread_id } = streamed[0].data as { thread_id: string };
    await expect.poll(() => refusal(client.threads.get(thread_id)).then((refused) => refused.status), { timeout: 15_000 }).toBe(404);
    expect(transcript(await client.runs.wait(null, assistantId, { input: say("alone again") }))).toEqual(["human:alone again", "ai:echo: alone again"]);
  });

  it("errors: a failed run streams error and closes, and wait raises it; bad input and what is not supported answer 422 with detail", async () => {
    const { client, assistantId } = await setUp("errors");
    const { thread_id } = await client.threads.create();
    const failed = await collect(client.runs.stream(thread_id, assistantId, { input: say("/fail out of ideas"), streamMode: "updates" }));
    expect(eventNames(failed)).toEqual(["metadata", "error"]);
    expect(failed[1].data).toEqual({ error: "Error", message: "out of ideas" });
    await expect(client.runs.wait(thread_id, assistantId, { input: say("/fail again") })).rejects.toThrow("Error: again");
    expect((await client.threads.get(thread_id)).status).toBe("error");

    expect(await refusal(client.runs.wait("no-such-thread", assistantId, { input: say("x") }))).toEqual({ status: 404, body: { detail: "Thread no-such-thread not found", code: "NOT_FOUND" } });
    const unsupported = await refusal(collect(client.runs.stream(thread_id, assistantId, { input: say("x"), feedbackKeys: ["helpful"] })));
    expect(unsupported).toMatchObject({ status: 422, body: { code: "NOT_SUPPORTED" } });
    expect(unsupported.body.detail).toContain("feedback_keys");
    // A webhook is held to the egress policy when written: with authentication on, loopback is refused.
    expect(await refusal(client.runs.create(thread_id, assistantId, { input: say("x"), webhook: "http://127.0.0.1:9/hook" }))).toMatchObject({ status: 400, body: { code: "BASE_URL_NOT_ALLOWED" } });
    expect(await refusal(client.runs.create(thread_id, assistantId, { input: { messages: [{ role: "wizard", content: "x" }] } }))).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST" } });
    expect(await refusal(client.assistants.create({ graphId: "planner" }))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    // The ReAct graph has no subgraphs.
    expect(await client.assistants.getSubgraphs(assistantId)).toEqual({});
    // Nothing was queued by the refused runs.
    expect(await client.runs.list(thread_id)).toHaveLength(2);
  });

  it("auth: the apiKey is required, names the tenant, and a bearer token in defaultHeaders works as well", async () => {
    const { client, tenant, assistantId } = await setUp("auth");
    const { thread_id } = await client.threads.create({ metadata: { secret: "of this tenant" } });
    await client.runs.wait(thread_id, assistantId, { input: say("private") });

    const anonymous = await sdkClient(target().url, tenant, { anonymous: true });
    expect(await refusal(anonymous.threads.get(thread_id))).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
    const stranger = await sdkClient(target().url, freshTenant("stranger"));
    expect(await refusal(stranger.threads.get(thread_id))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await refusal(stranger.runs.wait(thread_id, assistantId, { input: say("let me in") }))).toMatchObject({ status: 404 });
    expect(await refusal(collect(stranger.runs.joinStream(thread_id, "any-run")))).toMatchObject({ status: 404 });
    expect(await stranger.threads.search({ metadata: { secret: "of this tenant" } })).toEqual([]);
    // The stranger's own default assistant alone.
    expect(await stranger.assistants.count()).toBe(1);

    const viaHeader = await sdkClient(target().url, tenant, { anonymous: true, headers: { authorization: `Bearer ${await tokenFor(tenant)}` } });
    expect(transcript((await viaHeader.threads.get(thread_id)).values)).toEqual(["human:private", "ai:echo: private"]);
  });
}
