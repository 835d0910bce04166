import type { EgressPolicy } from "@axiom-lattice/core";
import { FAKE_RETRY_AFTER_S, FakeOpenAi, closedPortBaseUrl, countingResolver } from "@axiom-lattice/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type UpstreamErrorCode, classifyUpstreamError } from "../src";
import { collect, manager, scope, sharedStores, shutdownManagers, thread, tokens } from "./support";

const api = new FakeOpenAi();
let baseUrl: string;
// Small bounds, so a hung API fails the run in about (1 + retries) × timeout plus LangChain's back-off.
const upstream = { timeoutMs: 400, maxRetries: 1 };
const BOUND_MS = 6_000;

beforeAll(async () => {
  baseUrl = await api.start();
});
afterAll(() => api.stop());
afterEach(() => shutdownManagers());

/** Runs one message on an assistant of `model` at `url`; its streamed chunks and its recorded outcome. */
async function runAgainst(url: string, model: string, { apiKey = "sk-local", egress }: { apiKey?: string | null; egress?: EgressPolicy } = {}) {
  const stores = await sharedStores({ model: { provider: "openai", baseUrl: url, ...(apiKey === null ? {} : { apiKey }), model }, tools: [] });
  const agent = manager(stores, { upstream: egress ? { ...upstream, egress } : upstream }).getAgent(thread(`thread-${model}`));
  const startedAt = Date.now();
  const { messageId, stream } = await agent.addMessage({ message: "hello" }, { mode: "stream" });
  const chunks = await collect(stream);
  const elapsedMs = Date.now() - startedAt;
  const record = await stores.queue.getMessage(messageId, scope);
  return { chunks, elapsedMs, record };
}

describe("model API failures", () => {
  const failures: Array<[string, () => string | Promise<string>, string, UpstreamErrorCode]> = [
    ["refuses connections", () => closedPortBaseUrl(), "any-model", "UPSTREAM_UNREACHABLE"],
    ["never answers", () => baseUrl, "silent", "UPSTREAM_TIMEOUT"],
    ["answers 401", () => baseUrl, "fail-401", "UPSTREAM_AUTH_FAILED"],
    ["answers 429", () => baseUrl, "fail-429", "UPSTREAM_RATE_LIMITED"],
    ["answers what is not JSON", () => baseUrl, "garbage", "UPSTREAM_INVALID_RESPONSE"],
    ["answers JSON that is no completion", () => baseUrl, "wrong-shape", "UPSTREAM_INVALID_RESPONSE"],
  ];

  it.each(failures)("an API that %s ends the run in error with its code, in the chunk and the record", async (_, url, model, code) => {
    const { chunks, elapsedMs, record } = await runAgainst(await url(), model);

    expect(chunks.at(-1)).toMatchObject({ type: "message_failed", data: { status: "error", code, error: expect.stringMatching(new RegExp(`^${code}: `)) } });
    expect(record).toMatchObject({ runStatus: "error", error: expect.stringMatching(new RegExp(`^${code}: `)) });
    expect(elapsedMs).toBeLessThan(BOUND_MS);
  });

  it("keeps the refused key out of the run's error: only the status", async () => {
    const { chunks, record } = await runAgainst(baseUrl, "fail-401", { apiKey: "sk-refused-0123456789wxyz" });
    const failure = "UPSTREAM_AUTH_FAILED: The model API refused the credentials: HTTP 401";
    expect(record?.error).toBe(failure);
    expect(chunks.at(-1)).toMatchObject({ data: { error: failure } });
  });

  it("fails a run without any API key with UPSTREAM_AUTH_FAILED, calling nothing", async () => {
    // The runtime reads no environment: a key only the environment has is none.
    vi.stubEnv("OPENAI_API_KEY", "sk-from-the-environment");
    try {
      const { chunks, record } = await runAgainst(baseUrl, "keyless", { apiKey: null });
      const failure = expect.stringMatching(/^UPSTREAM_AUTH_FAILED: No API key/);
      expect(chunks.at(-1)).toMatchObject({ type: "message_failed", data: { status: "error", code: "UPSTREAM_AUTH_FAILED", error: failure } });
      expect(record).toMatchObject({ runStatus: "error", error: failure });
      expect(api.requestsFor("keyless")).toBe(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("retries a request that timed out, as many times as the policy says", async () => {
    const before = api.requestsFor("silent");
    await runAgainst(baseUrl, "silent");
    expect(api.requestsFor("silent") - before).toBe(1 + upstream.maxRetries);
  });

  it("a 429 with Retry-After is retried no sooner than the API asked, and the run answers", async () => {
    const { record } = await runAgainst(baseUrl, "rate-limited-once");
    expect(record).toMatchObject({ runStatus: "success" });
    const [limited, retried] = api.requests.filter((request) => request.body.model === "rate-limited-once");
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(FAKE_RETRY_AFTER_S * 1_000);
  });

  it("streams a good answer through the same policy and mapping", async () => {
    const { chunks, record } = await runAgainst(baseUrl, "fake-model");
    expect(tokens(chunks).join("")).toBe("Hello from the fake API: hello");
    expect(chunks.at(-1)).toMatchObject({ type: "message_completed", data: { status: "success" } });
    expect(record).toMatchObject({ runStatus: "success" });
  });

  it("ends the run with BASE_URL_NOT_ALLOWED when the egress policy refuses the base URL; the API hears nothing", async () => {
    const { chunks, elapsedMs, record } = await runAgainst(baseUrl, "refused-model", { egress: { localNetworks: false } });
    const failure = "BASE_URL_NOT_ALLOWED: address 127.0.0.1 is in the loopback range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it";
    expect(chunks.at(-1)).toMatchObject({ type: "message_failed", data: { status: "error", code: "BASE_URL_NOT_ALLOWED", error: failure } });
    expect(record).toMatchObject({ runStatus: "error", error: failure });
    expect(api.requestsFor("refused-model")).toBe(0);
    // Not tried again (LangChain's back-off alone would take a second).
    expect(elapsedMs).toBeLessThan(1_000);
  });

  it("does not try a refused target again: its name is resolved once, however many retries the policy allows", async () => {
    const loopback = countingResolver("127.0.0.1");
    const egress: EgressPolicy = { localNetworks: false, resolve: loopback.resolve };
    const { record } = await runAgainst(baseUrl.replace("127.0.0.1", "fake-api.test"), "refused-by-name", { egress });
    expect(record?.error).toMatch(/^BASE_URL_NOT_ALLOWED: host "fake-api.test" \(address 127.0.0.1\) is in the loopback range/);
    expect(loopback.count).toBe(1);
    expect(api.requestsFor("refused-by-name")).toBe(0);
  });

  it("leaves errors that did not come from the API unclassified", () => {
    expect(classifyUpstreamError(new Error("the model script says fail"))).toBeUndefined();
    expect(classifyUpstreamError(Object.assign(new Error("fetch failed"), { cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) }))).toBe(
      "UPSTREAM_UNREACHABLE",
    );
  });
});
