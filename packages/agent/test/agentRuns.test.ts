import { JSON_BYTES_BOUND, JSON_DEPTH_BOUND, eventually, nestedObject, objectOfJsonBytes, runRecords } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { getReplicaId } from "@axiom-lattice/core";
import { InvalidRunInputError } from "../src";
import { ASSISTANT, TENANT, collect, manager, scope, thread, tokens, useSharedStores } from "./support";

const stores = useSharedStores();

describe("agent runs", () => {
  it("streams the scripted answer token by token, with indexed chunks, and records the run", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: "hello big world" }, { mode: "stream" });
    const chunks = await collect(stream);

    expect(tokens(chunks)).toEqual(["echo:", " hello", " big", " world"]);
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1, 2, 3, 4]);
    expect(chunks.every((chunk) => chunk.messageId === messageId)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed", data: { status: "success" } });

    const run = await stores.queue.getMessage(messageId, scope);
    expect(run).toMatchObject({ status: "completed", runStatus: "success", replicaId: getReplicaId() });
    expect(run!.startedAt!.getTime()).toBeLessThanOrEqual(run!.finishedAt!.getTime());
    expect((await agent.getState()).messages.map((message) => [message.type, message.content])).toEqual([
      ["human", "hello big world"],
      ["ai", "echo: hello big world"],
    ]);
  });

  it("/tool: streams the call and the result, and the answer reports the result", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { stream } = await agent.addMessage({ message: '/tool echo {"text":"ping"}' }, { mode: "stream" });
    const chunks = await collect(stream);

    expect(chunks.map((chunk) => chunk.type)).toEqual(["tool_call", "tool_result", "message_chunk", "message_chunk", "message_chunk", "message_completed"]);
    expect(chunks[0].data).toMatchObject({ name: "echo", args: { text: "ping" } });
    expect(chunks[1].data).toMatchObject({ name: "echo", content: "ping", status: "success" });
    expect(tokens(chunks).join("")).toBe("echo returned: ping");
  });

  it("a tool its tenant switched off is left out of the run: the call comes back as a tool error", async () => {
    const switchedOff = new Set<string>(["echo"]);
    const agent = manager(stores, { disabledTools: async (tenantId) => (tenantId === TENANT ? switchedOff : new Set()) }).getAgent(thread("t1"));
    const off = await collect((await agent.addMessage({ message: '/tool echo {"text":"ping"}' }, { mode: "stream" })).stream);
    expect(off[1].data).toMatchObject({ name: "echo", status: "error" });
    expect(tokens(off).join("")).not.toBe("echo returned: ping");
    expect(off.at(-1)).toMatchObject({ type: "message_completed" });

    // Read at each run: switched on again, the next run has it.
    switchedOff.clear();
    const on = await collect((await agent.addMessage({ message: '/tool echo {"text":"ping"}' }, { mode: "stream" })).stream);
    expect(tokens(on).join("")).toBe("echo returned: ping");
  });

  it("/fail: the run fails with the reason, in the stream and the run record", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId, stream } = await agent.addMessage({ message: "/fail upstream quota exceeded" }, { mode: "stream" });
    const chunks = await collect(stream);

    expect(chunks.at(-1)).toMatchObject({ type: "message_failed", data: { status: "error", error: "upstream quota exceeded" } });
    expect(await stores.queue.getMessage(messageId, scope)).toMatchObject({ runStatus: "error", error: "upstream quota exceeded" });
  });

  it("/interrupt: the run stops with the question; a resume command continues it with the answer", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const first = await agent.addMessage({ message: "/interrupt What is your name?" }, { mode: "stream" });
    const paused = await collect(first.stream);
    expect(paused.at(-1)).toMatchObject({ type: "interrupt", data: { status: "interrupted", value: "What is your name?" } });
    expect(await stores.queue.getMessage(first.messageId, scope)).toMatchObject({ runStatus: "interrupted" });
    expect(await agent.resumeTask()).toEqual({ status: "interrupted", leaseContended: false });

    const resumed = await agent.addMessage({}, { mode: "stream", command: { resume: "Ada" } });
    const chunks = await collect(resumed.stream);
    expect(chunks[0]).toMatchObject({ type: "tool_result", data: { name: "ask_human", content: "Ada" } });
    expect(tokens(chunks).join("")).toBe("ask_human returned: Ada");
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed" });
    expect(await agent.resumeTask()).toEqual({ status: "idle", leaseContended: false });
  });

  it("a resume command on a thread that waits for nothing fails that run", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { stream } = await agent.addMessage({}, { mode: "stream", command: { resume: "x" } });
    expect((await collect(stream)).at(-1)).toMatchObject({ type: "message_failed", data: { error: expect.stringMatching(/no pending interrupt/) } });
  });

  it("refuses input with neither a message nor a command", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    await expect(agent.addMessage({})).rejects.toThrow(InvalidRunInputError);
    await expect(agent.addMessage({ message: "" })).rejects.toMatchObject({ code: "INVALID_RUN_INPUT" });
  });

  it("refuses a resume value beyond the bounds of free-form JSON, queueing nothing", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    for (const resume of [nestedObject(JSON_DEPTH_BOUND + 1), objectOfJsonBytes(JSON_BYTES_BOUND + 1)]) {
      await expect(agent.addMessage({}, { command: { resume } })).rejects.toMatchObject({ code: "INVALID_RUN_INPUT" });
    }
    expect(await stores.queue.getQueueSize({ ...scope, threadId: "t1" })).toBe(0);
  });

  it("processes a thread's messages one at a time, in enqueue order, each seeing the previous ones", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await agent.addMessage({ message: `turn ${i}` }, { mode: "queue" })).messageId);
    const last = await agent.waitForRun(ids.at(-1)!);

    expect(last.status).toBe("success");
    const runs = await runRecords(stores.queue, { ...scope, threadId: "t1" });
    expect(runs.map((run) => run.id)).toEqual(ids);
    for (let i = 1; i < runs.length; i++) expect(runs[i].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].finishedAt!.getTime());
    const { messages } = await agent.getState();
    expect(messages.filter((message) => message.type === "ai").map((message) => message.content)).toEqual(ids.map((_, i) => `echo: turn ${i}`));
  });

  it("wait mode settles with the run's outcome and only the messages this run added", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    await (await agent.addMessage({ message: "earlier" }, { mode: "wait" })).completion;
    const { completion, messageId } = await agent.addMessage({ message: "hi" }, { mode: "wait", messageId: "client-chosen-1" });
    expect(messageId).toBe("client-chosen-1");
    expect(await completion).toEqual({
      messageId,
      status: "success",
      messages: [
        { id: messageId, type: "human", content: "hi" },
        { id: expect.any(String), type: "ai", content: "echo: hi" },
      ],
    });
  });

  it("wait mode reports a failed run with its error, and an interrupt with its question and the resume's own messages", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const failed = await (await agent.addMessage({ message: "/fail no luck" }, { mode: "wait" })).completion;
    expect(failed).toMatchObject({ status: "error", error: expect.stringContaining("no luck"), messages: [{ type: "human", content: "/fail no luck" }] });

    const asked = await (await agent.addMessage({ message: "/interrupt Your name?" }, { mode: "wait" })).completion;
    expect(asked).toMatchObject({ status: "interrupted", interrupts: [{ value: "Your name?" }] });
    expect(asked.messages.map((message) => message.type)).toEqual(["human", "ai"]);

    // Read once a later run has added its messages too: the resume's are still only its own.
    const resumed = await agent.addMessage({}, { mode: "queue", command: { resume: "Ada" } });
    const after = await agent.addMessage({ message: "next" }, { mode: "wait" });
    await after.completion;
    expect((await agent.waitForRun(resumed.messageId)).messages.map((message) => [message.type, message.content])).toEqual([
      ["tool", "Ada"],
      ["ai", "ask_human returned: Ada"],
    ]);
    expect((await after.completion).messages.map((message) => message.content)).toEqual(["next", "echo: next"]);
  });

  it("replays a message's chunks after an index, and answers late subscribers from the buffer", async () => {
    const agent = manager(stores).getAgent(thread("t1"));
    const { messageId, completion } = await agent.addMessage({ message: "one two three" }, { mode: "wait" });
    await completion;

    expect((await collect(agent.chunkStream(messageId))).map((chunk) => chunk.index)).toEqual([0, 1, 2, 3, 4]);
    const tail = await collect(agent.chunkStream(messageId, 2));
    expect(tail.map((chunk) => [chunk.index, chunk.type])).toEqual([
      [3, "message_chunk"],
      [4, "message_completed"],
    ]);
  });

  it("ends a stream with MESSAGE_NOT_FOUND for an unknown id, or another tenant's message", async () => {
    const runtime = manager(stores);
    const mine = runtime.getAgent(thread("t1"));
    const { messageId, completion } = await mine.addMessage({ message: "secret" }, { mode: "wait" });
    await completion;

    expect(await collect(mine.chunkStream("no-such-message"))).toEqual([
      expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }) }),
    ]);
    const other = runtime.getAgent(thread("t1", "tenant-b"));
    const leaked = await collect(other.chunkStream(messageId));
    expect(leaked).toEqual([expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }) })]);
  });

  it("keeps tenants' threads apart: the same thread id in two tenants has two histories", async () => {
    const otherTenant = "tenant-b";
    await stores.assistants.createAssistant(otherTenant, { id: ASSISTANT, name: "Echo bot", model: { provider: "scripted" }, tools: [] });
    const runtime = manager(stores);
    await (await runtime.getAgent(thread("shared-id")).addMessage({ message: "from a" }, { mode: "wait" })).completion;
    await (await runtime.getAgent(thread("shared-id", otherTenant)).addMessage({ message: "from b" }, { mode: "wait" })).completion;

    expect((await runtime.getAgent(thread("shared-id", otherTenant)).getState()).messages.map((message) => message.content)).toEqual([
      "from b",
      "echo: from b",
    ]);
  });

  it("keeps no per-thread processor once a thread's queue is drained", async () => {
    const runtime = manager(stores);
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runtime.getAgent(thread(`many-${i}`)).addMessage({ message: "hi" }, { mode: "wait" })),
    );
    await Promise.all(runs.map((run) => run.completion));
    await eventually("processors to stop", () => runtime.stats().activeThreads === 0, { timeoutMs: 3_000 });
  });

  it("fails the run clearly when the thread's assistant does not exist", async () => {
    const agent = manager(stores).getAgent({ tenantId: TENANT, assistantId: "ghost", threadId: "t1" });
    const { stream } = await agent.addMessage({ message: "hi" }, { mode: "stream" });
    expect((await collect(stream)).at(-1)).toMatchObject({
      type: "message_failed",
      data: { code: "ASSISTANT_NOT_FOUND", error: "ASSISTANT_NOT_FOUND: Assistant ghost not found" },
    });
  });
});
