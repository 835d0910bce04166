import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamChunk } from "@axiom-lattice/agent";
import { parseSse } from "@axiom-lattice/testing";
import { streamRun } from "../src/langgraph/runStream";
import { runStreams } from "../src/shared/runStreams";

/** A run's chunks that fail after the first, as a stream's reads do once the database is gone for good. */
async function* failingAfterOne(error: Error): AsyncGenerator<StreamChunk> {
  yield { type: "message_chunk", data: "a", messageId: "m1", index: 0 };
  throw error;
}

const unavailable = new Error("Connection terminated unexpectedly");

describe("a run's stream whose source fails", () => {
  const app = Fastify({ logger: false });
  let url = "";

  beforeAll(async () => {
    const counter = { inc() {}, dec() {} };
    const streams = runStreams(app, { config: { sseHeartbeatMs: 15_000 }, metrics: { sseSubscribers: counter, affinityMisses: counter } as never });
    app.get("/unavailable", (_request, reply) => streams.streamChunks(reply, failingAfterOne(unavailable), () => {}));
    app.get("/broken", (_request, reply) => streams.streamChunks(reply, failingAfterOne(new Error("a bug")), () => {}));
    app.get("/langgraph", (_request, reply) =>
      streamRun(reply, { runId: "m1", attempt: 1, chunks: failingAfterOne(unavailable), modes: ["messages-tuple"], announce: true, sse: {} }),
    );
    url = await app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => app.close());

  it("ends with an error event saying why and how to resume, not just ends", async () => {
    const events = parseSse(await (await fetch(`${url}/unavailable`)).text());
    expect(events.map((event) => [event.id, event.type])).toEqual([
      ["m1:0", "message_chunk"],
      [undefined, "error"],
    ]);
    expect(events[1].data).toMatchObject({ code: "DATABASE_UNAVAILABLE", error: expect.stringContaining("resume_stream") });
  });

  it("names an internal error as one", async () => {
    const events = parseSse(await (await fetch(`${url}/broken`)).text());
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: "INTERNAL_ERROR" } });
  });

  it("cuts a LangGraph stream, so its client reconnects with Last-Event-ID, rather than ends it", async () => {
    const response = await fetch(`${url}/langgraph`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });
});
