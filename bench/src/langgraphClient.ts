// The LangGraph Platform HTTP protocol as B11 drives it, through the official JS SDK's Client: the
// same calls to the gateway and to the reference server, so both are measured on one client's terms.
import { Client } from "@langchain/langgraph-sdk";
import { performance } from "node:perf_hooks";
import { forEachConcurrently } from "./concurrently";

/** Requests the SDK's client lets through at once: above any concurrency a figure uses. */
const MAX_IN_FLIGHT = 64;

/** How many set-up requests are in flight at once. */
const SETUP_CONCURRENCY = 10;

export interface StreamTiming {
  /** Request sent → the first event the run produced (the first after `metadata`). */
  firstEventMs: number;
  /** Request sent → the stream's end. */
  endMs: number;
}

const input = (text: string) => ({ messages: [{ role: "user", content: text }] });

export class LangGraphClient {
  private readonly client: Client;

  constructor(readonly url: string) {
    // No retries: a failed request must fail the figure, not be hidden in its latency. The SDK sends
    // at most 4 requests at once by default and queues the rest inside the client: the figure's 16
    // clients must each have theirs in flight, so the server, not the client, decides their latency.
    this.client = new Client({ apiUrl: url, callerOptions: { maxRetries: 0, maxConcurrency: MAX_IN_FLIGHT } });
  }

  /** Creates an assistant of `graphId` with default settings and returns its id. */
  async createAssistant(graphId: string): Promise<string> {
    return (await this.client.assistants.create({ graphId })).assistant_id;
  }

  /** Creates `count` threads labelled `{ bench: tag }` and returns their ids. */
  createThreads(tag: string, count: number): Promise<string[]> {
    const indexes = Array.from({ length: count }, (_, i) => i);
    return forEachConcurrently(indexes, SETUP_CONCURRENCY, async () => (await this.client.threads.create({ metadata: { bench: tag } })).thread_id);
  }

  /** A streamed run (messages-tuple), timed to its first run event and its end. */
  async stream(assistantId: string, threadId: string, text: string): Promise<StreamTiming> {
    const startedAt = performance.now();
    let firstEventMs: number | undefined;
    for await (const { event, data } of this.client.runs.stream(threadId, assistantId, { input: input(text), streamMode: ["messages-tuple"] })) {
      if (event === "error") throw new Error(`${this.url}: the run on ${threadId} failed: ${JSON.stringify(data)}`);
      if (event !== "metadata") firstEventMs ??= performance.now() - startedAt;
    }
    if (firstEventMs === undefined) throw new Error(`${this.url}: the run on ${threadId} streamed no event`);
    return { firstEventMs, endMs: performance.now() - startedAt };
  }

  /** `runs.wait`: returns the call's latency. */
  async wait(assistantId: string, threadId: string, text: string): Promise<number> {
    const startedAt = performance.now();
    const values = (await this.client.runs.wait(threadId, assistantId, { input: input(text) })) as { messages?: unknown[] };
    if (!values.messages?.length) throw new Error(`${this.url}: runs.wait on ${threadId} answered no messages`);
    return performance.now() - startedAt;
  }

  /** `runs.create`: a background run, answered once queued. */
  async enqueue(assistantId: string, threadId: string, text: string): Promise<void> {
    await this.client.runs.create(threadId, assistantId, { input: input(text) });
  }

  /** How many of the threads labelled `tag` are in `status` (at most `limit` counted). */
  async countThreads(tag: string, status: "busy" | "idle", limit: number): Promise<number> {
    return (await this.client.threads.search({ metadata: { bench: tag }, status, limit })).length;
  }
}
