import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How the fake answers a model list, chosen by the base URL's first path segment
 * (`{origin}/{behaviour}`, see {@link FakeModelListApi.baseUrl}; a list path with no segment before
 * it is `ok`): `ok` lists {@link FakeModelListApi.models}; `fail-401`, `fail-429` (with
 * `Retry-After: 7`) answer that status; `garbage` a body that is not JSON; `wrong-shape` JSON that is
 * no model list; `silent` never answers; `redirect` is a 302 to {@link FakeModelListApi.redirectTo};
 * `endless` streams a list that never ends; `stuck` (Anthropic's wire only) answers the first page
 * to every request, always with more to come.
 */
export const FAKE_MODEL_LIST_BEHAVIOURS = ["ok", "fail-401", "fail-429", "garbage", "wrong-shape", "silent", "redirect", "endless", "stuck"] as const;
export type FakeModelListBehaviour = (typeof FAKE_MODEL_LIST_BEHAVIOURS)[number];

/**
 * The wire format the fake speaks: OpenAI's `GET /v1/models` (`{ data: [{ id }] }`), Ollama's `GET
 * /api/tags` (`{ models: [{ name, model, … }] }`) or Anthropic's paged `GET /v1/models` (`{ data,
 * has_more, first_id, last_id }`, `?limit=` and `?after_id=`).
 */
export type FakeModelListWire = "openai" | "ollama" | "anthropic";

const LIST_PATHS: Record<FakeModelListWire, string> = { openai: "v1/models", ollama: "api/tags", anthropic: "v1/models" };

/** A request the fake received: its path and query, and its headers. */
export interface FakeModelListRequest {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A local HTTP server speaking a model API's list of models, with each fault a model API can show. */
export class FakeModelListApi {
  /** The models `ok` lists, in order. */
  models: string[] = ["model-a", "model-b"];
  /** Where `redirect` sends the client. */
  redirectTo = "http://127.0.0.1:9/v1/models";
  /** Anthropic's wire: the most models a page holds, whatever `limit` asks (the real API: 1,000). */
  maxPageSize = 1_000;
  /** Every request of a model list, in order. */
  readonly requests: FakeModelListRequest[] = [];
  private server!: Server;
  private readonly silent = new Set<ServerResponse>();

  constructor(readonly wire: FakeModelListWire = "openai") {}

  /** The `authorization` header of each request, in order. */
  get authorizations(): Array<string | undefined> {
    return this.requests.map(({ headers }) => headers.authorization);
  }

  /** Listens on a free port of 127.0.0.1; resolves to its origin. */
  async start(): Promise<string> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this.origin;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * The base URL whose model list answers as `behaviour` says, as a provider of the wire's kind names
   * it: `{origin}/{behaviour}/v1` for OpenAI's, `{origin}/{behaviour}` for Ollama's and Anthropic's.
   */
  baseUrl(behaviour: FakeModelListBehaviour): string {
    return this.wire === "openai" ? `${this.origin}/${behaviour}/v1` : `${this.origin}/${behaviour}`;
  }

  stop(): Promise<void> {
    for (const response of this.silent) response.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Writes model after model, as fast as the client reads, until the client goes. */
  private stream(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "application/json" });
    const chunk = `${JSON.stringify({ id: "m".repeat(200), name: "m".repeat(200) })},`.repeat(1_000);
    response.write(this.wire === "ollama" ? '{"models":[' : '{"data":[');
    const more = (): void => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once("drain", more);
    };
    response.once("close", () => this.silent.delete(response));
    more();
  }

  /** The list `ok` answers, in the wire's shape (for Anthropic's, the page `query` asks for). */
  private listBody(query: URLSearchParams): unknown {
    switch (this.wire) {
      case "openai":
        return { object: "list", data: this.models.map((id) => ({ id, object: "model", owned_by: "fake" })) };
      case "ollama":
        return {
          models: this.models.map((name) => ({
            name,
            model: name,
            modified_at: "2026-01-02T03:04:05.123456789Z",
            size: 2_019_393_189,
            digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
            details: { format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
          })),
        };
      case "anthropic": {
        const limit = Math.min(Math.max(Number(query.get("limit") ?? 20) || 20, 1), 1_000, this.maxPageSize);
        const after = query.get("after_id");
        const start = after === null ? 0 : this.models.indexOf(after) + 1;
        const page = this.models.slice(start, start + limit);
        return {
          data: page.map((id) => ({ type: "model", id, display_name: id.toUpperCase(), created_at: "2026-01-02T03:04:05Z" })),
          has_more: start + page.length < this.models.length,
          first_id: page[0] ?? null,
          last_id: page.at(-1) ?? null,
        };
      }
    }
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", this.origin);
    const listPath = LIST_PATHS[this.wire];
    const [, behaviour, ...rest] = url.pathname === `/${listPath}` ? ["", "ok", listPath] : url.pathname.split("/");
    if (request.method !== "GET" || rest.join("/") !== listPath) {
      response.writeHead(404).end();
      return;
    }
    this.requests.push({ url: `${url.pathname}${url.search}`, headers: request.headers });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    };
    switch (behaviour as FakeModelListBehaviour) {
      case "ok":
        return json(200, this.listBody(url.searchParams));
      case "fail-401":
        // As APIs do, the refusal quotes the key it refused.
        return json(401, { error: { message: `Incorrect API key provided: ${request.headers.authorization ?? request.headers["x-api-key"]}` } });
      case "fail-429":
        return json(429, { error: { message: "Rate limit reached" } }, { "retry-after": "7" });
      case "garbage":
        response.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
        return;
      case "wrong-shape":
        return json(200, { models: "none", data: "none" });
      case "silent":
        this.silent.add(response);
        return;
      case "redirect":
        response.writeHead(302, { location: this.redirectTo }).end();
        return;
      case "endless":
        this.silent.add(response);
        this.stream(response);
        return;
      case "stuck":
        if (this.wire !== "anthropic") break;
        return json(200, { ...(this.listBody(new URLSearchParams({ limit: "1000" })) as object), has_more: true });
    }
    response.writeHead(404).end();
  }
}
