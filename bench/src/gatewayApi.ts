// The gateway's HTTP API as the figures use it around their measurements: set-up and observing the
// queue. The measured requests themselves are sent by the figures (autocannon, timed fetches).
import { forEachConcurrently } from "./concurrently";

/** How many set-up or polling requests are in flight at once: enough to be quick, few enough not to be a load. */
const CONCURRENCY = 10;

export class GatewayApi {
  /** `headers`: sent with every request (a tenant's bearer token). */
  constructor(
    readonly url: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /**
   * An assistant on `model` (an assistant's model setting), by default the built-in scripted model
   * (it echoes `echo: <message>` token by token).
   */
  async createAssistant(id: string, model?: Record<string, string>): Promise<void> {
    await this.send("POST", "/api/assistants", { id, name: `bench ${id}`, ...(model ? { model } : {}) });
  }

  /** Creates threads `<prefix>-0` … of the assistant and returns their ids. */
  createThreads(assistantId: string, prefix: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    return forEachConcurrently(ids, CONCURRENCY, async (threadId) => {
      await this.send("POST", "/api/threads", { thread_id: threadId, assistant_id: assistantId });
      return threadId;
    });
  }

  /** Messages pending or processing on each thread. */
  queueSizes(threadIds: string[]): Promise<number[]> {
    return forEachConcurrently(threadIds, CONCURRENCY, async (threadId) => {
      const queue = (await this.send("GET", `/api/threads/${threadId}/queue`)) as { size: number };
      return queue.size;
    });
  }

  /**
   * Resolves once no thread has a queued message, polling only the threads that still had some (no
   * message is added meanwhile, so an empty queue stays empty). Returns how long it took.
   */
  async waitUntilDrained(threadIds: string[], timeoutMs: number, pollMs = 250): Promise<number> {
    const startedAt = Date.now();
    let busy = threadIds;
    for (;;) {
      const sizes = await this.queueSizes(busy);
      busy = busy.filter((_, i) => sizes[i] > 0);
      if (busy.length === 0) return Date.now() - startedAt;
      if (Date.now() - startedAt > timeoutMs) {
        const left = sizes.reduce((sum, size) => sum + size, 0);
        throw new Error(`${left} messages on ${busy.length} threads still queued after ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private async send(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  }
}
