import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ModelProviderRegistry, ScriptedChatModel, UnknownModelProviderError } from "../src";
import { parseDirective } from "../src/models/scriptedDirectives";

describe("parseDirective", () => {
  it("reads each directive and echoes everything else", () => {
    expect(parseDirective("hello")).toEqual({ kind: "echo" });
    expect(parseDirective("/unknown word")).toEqual({ kind: "echo" });
    expect(parseDirective('/tool echo {"text":"hi"}')).toEqual({ kind: "tool", name: "echo", args: { text: "hi" } });
    expect(parseDirective("/tool clock")).toEqual({ kind: "tool", name: "clock", args: {} });
    expect(parseDirective("/sleep 250")).toEqual({ kind: "sleep", ms: 250 });
    expect(parseDirective("/drip 20 one two")).toEqual({ kind: "drip", ms: 20 });
    expect(parseDirective("/interrupt What is your name?")).toEqual({ kind: "interrupt", question: "What is your name?" });
    expect(parseDirective("/fail disk on fire")).toEqual({ kind: "fail", reason: "disk on fire" });
    expect(parseDirective("/task helper-bot /sleep 50")).toEqual({ kind: "task", assistant: "helper-bot", description: "/sleep 50" });
  });

  it("rejects malformed directives with a clear message", () => {
    expect(() => parseDirective("/tool echo {not json")).toThrow(/expects JSON arguments/);
    expect(() => parseDirective("/tool echo [1]")).toThrow(/JSON object/);
    expect(() => parseDirective("/sleep soon")).toThrow(/whole number of milliseconds/);
    expect(() => parseDirective("/drip fast one two")).toThrow(/drip expects a whole number of milliseconds/);
    expect(() => parseDirective("/interrupt")).toThrow(/expects a question/);
    expect(() => parseDirective("/task helper-bot")).toThrow(/assistant id and the task's text/);
  });
});

describe("ScriptedChatModel", () => {
  const model = new ScriptedChatModel();

  it("streams `echo: <text>` token by token", async () => {
    const parts: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage("hello big world")])) parts.push(chunk.text);
    expect(parts).toEqual(["echo:", " hello", " big", " world"]);
    expect((await model.invoke([new HumanMessage("hello big world")])).text).toBe("echo: hello big world");
  });

  it("/drip streams the echo one word every given milliseconds", async () => {
    const arrivals: number[] = [];
    const startedAt = Date.now();
    const parts: string[] = [];
    for await (const chunk of await model.stream([new HumanMessage("/drip 60 a b")])) {
      parts.push(chunk.text);
      arrivals.push(Date.now() - startedAt);
    }
    expect(parts).toEqual(["echo:", " /drip", " 60", " a", " b"]);
    // Four pauses of 60 ms between five words (timers never fire early).
    expect(arrivals.at(-1)! - arrivals[0]).toBeGreaterThanOrEqual(4 * 60 - 5);
  });

  it("calls the named tool with the JSON arguments", async () => {
    const reply = await model.invoke([new HumanMessage('/tool echo {"text":"ping"}')]);
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "echo", args: { text: "ping" } })]);
  });

  it("asks the human through the ask_human tool on /interrupt", async () => {
    const reply = await model.invoke([new HumanMessage("/interrupt Proceed?")]);
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "ask_human", args: { question: "Proceed?" } })]);
  });

  it("reports a tool result in its answer", async () => {
    const reply = await model.invoke([new ToolMessage({ content: "12:00", tool_call_id: "call_1", name: "clock" })]);
    expect(reply.text).toBe("clock returned: 12:00");
  });

  it("fails with the given reason on /fail", async () => {
    await expect(model.invoke([new HumanMessage("/fail quota exceeded")])).rejects.toThrow("quota exceeded");
  });

  it("sleeps on /sleep, and stops sleeping when the call is aborted", async () => {
    expect((await model.invoke([new HumanMessage("/sleep 20")])).text).toBe("echo: /sleep 20");
    const controller = new AbortController();
    const pending = model.invoke([new HumanMessage("/sleep 600000")], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 20);
    // Settling at all (within the test timeout) is the proof: the sleep was ten minutes.
    await expect(pending).rejects.toThrow();
  });
});

describe("model registry", () => {
  it("builds the scripted model and rejects an unknown provider with a typed error", () => {
    const models = new ModelProviderRegistry();
    expect(models.createChatModel({ provider: "scripted" })).toBeInstanceOf(ScriptedChatModel);
    expect(() => models.get("nope")).toThrow(UnknownModelProviderError);
    expect(() => models.createChatModel({ provider: "nope" })).toThrow(
      expect.objectContaining({ code: "UNKNOWN_MODEL_PROVIDER", provider: "nope", message: expect.stringMatching(/registered providers: .*scripted.*openai/) }),
    );
  });

  it("registers further providers by key, on that registry alone", () => {
    const models = new ModelProviderRegistry();
    models.register("scripted-alias", () => new ScriptedChatModel());
    expect(models.createChatModel({ provider: "scripted-alias" })).toBeInstanceOf(ScriptedChatModel);
    expect(new ModelProviderRegistry().has("scripted-alias")).toBe(false);
  });
});
