// The embed postMessage protocol's checks at each boundary: what is kept, what is skipped, what is ignored.
import { describe, expect, it } from "vitest";
import { EMBED_SOURCE, readEmbedConfig, readEmbedMessage, readQuickPrompt, readQuickPrompts } from "../src";

const envelope = (type: string, payload: unknown, overrides: Record<string, unknown> = {}) => ({ source: EMBED_SOURCE, version: 1, type, payload, ...overrides });
const chars = (n: number) => "x".repeat(n);
const quick = (index: number) => ({ label: `Q${index}`, text: `Ask ${index}` });

describe("the envelope", () => {
  it("reads each message type in a valid envelope", () => {
    expect(readEmbedMessage(envelope("axiom:hello", {}))).toEqual(envelope("axiom:hello", {}));
    expect(readEmbedMessage(envelope("axiom:identity", { token: "a.b.c" }))?.payload).toEqual({ token: "a.b.c" });
    expect(readEmbedMessage(envelope("axiom:send", { text: "hi" }))?.payload).toEqual({ text: "hi" });
    expect(readEmbedMessage(envelope("axiom:config", { welcome: "Hello" }))?.payload).toEqual({ welcome: "Hello" });
  });

  it.each([
    ["the wrong source", envelope("axiom:hello", {}, { source: "someone-else" })],
    ["no source", { version: 1, type: "axiom:hello", payload: {} }],
    ["the wrong version", envelope("axiom:hello", {}, { version: 2 })],
    ["the version as a string", envelope("axiom:hello", {}, { version: "1" })],
    ["an unknown type", envelope("axiom:unknown", {})],
    ["a string", "axiom:hello"],
    ["null", null],
    ["an array", [envelope("axiom:hello", {})]],
  ])("ignores %s", (_what, data) => {
    expect(readEmbedMessage(data)).toBeNull();
  });

  it("bounds axiom:send at 32,768 characters and refuses an empty or missing text", () => {
    expect(readEmbedMessage(envelope("axiom:send", { text: chars(32_768) }))).not.toBeNull();
    expect(readEmbedMessage(envelope("axiom:send", { text: chars(32_769) }))).toBeNull();
    expect(readEmbedMessage(envelope("axiom:send", { text: "" }))).toBeNull();
    expect(readEmbedMessage(envelope("axiom:send", {}))).toBeNull();
  });

  it("ignores an identity without a token", () => {
    expect(readEmbedMessage(envelope("axiom:identity", { token: "" }))).toBeNull();
    expect(readEmbedMessage(envelope("axiom:identity", null))).toBeNull();
  });
});

describe("quick prompts", () => {
  it("bounds the label at 40 characters and the text at 500", () => {
    expect(readQuickPrompt({ label: chars(40), text: "t" })).toEqual({ label: chars(40), text: "t" });
    expect(readQuickPrompt({ label: chars(41), text: "t" })).toBeNull();
    expect(readQuickPrompt({ label: "l", text: chars(500) })).toEqual({ label: "l", text: chars(500) });
    expect(readQuickPrompt({ label: "l", text: chars(501) })).toBeNull();
    expect(readQuickPrompt({ label: "", text: "t" })).toBeNull();
    expect(readQuickPrompt({ label: "l", text: "" })).toBeNull();
  });

  it("refuses an entry with an extra or a missing key, or not an object", () => {
    expect(readQuickPrompt({ label: "l", text: "t", icon: "x" })).toBeNull();
    expect(readQuickPrompt({ label: "l" })).toBeNull();
    expect(readQuickPrompt(["l", "t"])).toBeNull();
    expect(readQuickPrompt("l")).toBeNull();
  });

  it("keeps at most 6, skipping invalid entries", () => {
    const six = Array.from({ length: 6 }, (_, index) => quick(index));
    expect(readQuickPrompts(six)).toEqual(six);
    expect(readQuickPrompts([...six, quick(6)])).toEqual(six);
    expect(readQuickPrompts([quick(1), { label: chars(41), text: "t" }, quick(2)])).toEqual([quick(1), quick(2)]);
  });

  it("clears with an empty array and ignores an array of only invalid entries", () => {
    expect(readQuickPrompts([])).toEqual([]);
    expect(readQuickPrompts([{ label: "l", text: "t", extra: 1 }, 42])).toBeNull();
    expect(readQuickPrompts("not an array")).toBeNull();
  });
});

describe("axiom:config", () => {
  it("keeps a non-empty welcome only", () => {
    expect(readEmbedConfig({ welcome: "Hi", quicks: [quick(1)] })).toEqual({ welcome: "Hi", quicks: [quick(1)] });
    expect(readEmbedConfig({ welcome: "", quicks: [quick(1)] })).toEqual({ quicks: [quick(1)] });
    expect(readEmbedConfig({ welcome: 42, quicks: [] })).toEqual({ quicks: [] });
  });

  it("ignores a payload with neither a welcome nor quick prompts left", () => {
    expect(readEmbedConfig({ welcome: "" })).toBeNull();
    expect(readEmbedConfig({ quicks: [{ label: chars(41), text: "t" }] })).toBeNull();
    expect(readEmbedConfig({})).toBeNull();
    expect(readEmbedMessage(envelope("axiom:config", { welcome: "", quicks: [{}] }))).toBeNull();
  });
});
