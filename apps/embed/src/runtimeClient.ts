import { type QuickPrompt } from "@axiom-lattice/protocols";
import { type SseEvent, sseEvents } from "./sseEvents";

/** The web app's public appearance (`GET /web-apps/{id}/config`). */
export interface WebAppConfig {
  id: string;
  name: string;
  title?: string;
  welcome?: string;
  quicks: QuickPrompt[];
  accent_color?: string;
  allowed_origins: string[];
  /** `anonymous`: the page takes a visitor token ({@link RuntimeClient.admitVisitor}) instead of the host's. */
  identity: { mode: "signed" | "anonymous" };
}

export interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** What a thread's run waits on: the question the graph's `interrupt()` asked. */
export interface PendingInterrupt {
  id?: string;
  value: unknown;
}

/** A thread as the page shows it: its turns, and what it waits on. */
export interface ThreadView {
  messages: Turn[];
  interrupts: PendingInterrupt[];
}

/** A failed call: the gateway's stable code and message. */
export class RuntimeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A run's stream is resumed this many times at most when it breaks (a replica gone mid-answer). */
const MAX_RESUMES = 5;

/** The web app's runtime routes, for one end user (their token), on the gateway that served the page. */
export class RuntimeClient {
  private token: string | undefined;

  constructor(private readonly base: string) {}

  setToken(token: string | undefined): void {
    this.token = token;
  }

  config(): Promise<WebAppConfig> {
    return this.call("GET", "/config");
  }

  /** A visitor token of an anonymous web app: a new visitor's, or, with the visitor's token set, the same visitor's renewed. */
  async admitVisitor(): Promise<string> {
    return (await this.call<{ token: string }>("POST", "/visitors")).token;
  }

  async createThread(): Promise<string> {
    return (await this.call<{ thread_id: string }>("POST", "/threads", {})).thread_id;
  }

  thread(threadId: string): Promise<ThreadView> {
    return this.call("GET", `/threads/${encodeURIComponent(threadId)}`);
  }

  /** Sends `message` and yields the projected events until the run ends (see {@link follow}). */
  send(threadId: string, message: string): AsyncGenerator<SseEvent> {
    return this.follow(threadId, `/threads/${encodeURIComponent(threadId)}/stream`, { message });
  }

  /** Answers what the thread waits on and yields the events of the run that goes on. */
  answer(threadId: string, interruptId: string, response: string): AsyncGenerator<SseEvent> {
    return this.follow(threadId, `/threads/${encodeURIComponent(threadId)}/interrupts/${encodeURIComponent(interruptId)}/resume`, { response });
  }

  /**
   * Yields the projected events of the run `path` starts, until it ends. A stream that breaks before
   * its end is resumed after the last event received (any replica serves it), so nothing repeats.
   */
  private async *follow(threadId: string, path: string, body: unknown): AsyncGenerator<SseEvent> {
    const thread = `/threads/${encodeURIComponent(threadId)}`;
    let response = await this.fetch("POST", path, body);
    let lastId: string | undefined;
    for (let resumes = 0; ; resumes += 1) {
      try {
        for await (const event of sseEvents(response.body!)) {
          lastId = event.id ?? lastId;
          yield event;
          const type = (event.data as { type?: string }).type;
          if (type === "done" || type === "error" || type === "interrupt") return;
        }
      } catch {
        // The connection broke: resumed below.
      }
      if (lastId === undefined || resumes >= MAX_RESUMES) throw new RuntimeError(0, "STREAM_BROKEN", "The answer's stream broke; send again");
      response = await this.fetch("POST", `${thread}/resume_stream`, {}, { "last-event-id": lastId });
    }
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.fetch(method, path, body)).json()) as T;
  }

  private async fetch(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...headers,
        ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      const failure = (await response.json().catch(() => ({}))) as { code?: string; error?: string };
      throw new RuntimeError(response.status, failure.code ?? "HTTP_ERROR", failure.error ?? response.statusText);
    }
    return response;
  }
}
