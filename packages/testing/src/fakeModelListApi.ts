import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How the fake answers a model list, chosen by the base URL's first path segment
 * (`{origin}/{behaviour}/v1`; a plain `{origin}/v1` is `ok`): `ok` lists {@link FakeModelListApi.models}; `fail-401`, `fail-429`
 * (with `Retry-After: 7`) answer that status; `garbage` a body that is not JSON; `wrong-shape` JSON
 * that is no model list; `silent` never answers; `redirect` is a 302 to
 * {@link FakeModelListApi.redirectTo}; `endless` streams a list that never ends.
 */
export const FAKE_MODEL_LIST_BEHAVIOURS = ["ok", "fail-401", "fail-429", "garbage", "wrong-shape", "silent", "redirect", "endless"] as const;
export type FakeModelListBehaviour = (typeof FAKE_MODEL_LIST_BEHAVIOURS)[number];

/** A local HTTP server speaking OpenAI's `GET /v1/models`, with each fault a model API can show. */
export class FakeModelListApi {
  /** The models `ok` lists, in order. */
  models: string[] = ["model-a", "model-b"];
  /** Where `redirect` sends the client. */
  redirectTo = "http://127.0.0.1:9/v1/models";
  /** The `authorization` header of each request, in order. */
  readonly authorizations: Array<string | undefined> = [];
  private server!: Server;
  private readonly silent = new Set<ServerResponse>();

  /** Listens on a free port of 127.0.0.1; resolves to its origin. */
  async start(): Promise<string> {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this.origin;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The base URL whose model list answers as `behaviour` says. */
  baseUrl(behaviour: FakeModelListBehaviour): string {
    return `${this.origin}/${behaviour}/v1`;
  }

  stop(): Promise<void> {
    for (const response of this.silent) response.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Writes model after model, as fast as the client reads, until the client goes. */
  private stream(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "application/json" });
    const chunk = `${JSON.stringify({ id: "m".repeat(200), object: "model" })},`.repeat(1_000);
    response.write('{"data":[');
    const more = (): void => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once("drain", more);
    };
    response.once("close", () => this.silent.delete(response));
    more();
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? "";
    const [, behaviour, ...rest] = path === "/v1/models" ? ["", "ok", "v1", "models"] : path.split("/");
    if (request.method !== "GET" || rest.join("/") !== "v1/models") {
      response.writeHead(404).end();
      return;
    }
    this.authorizations.push(request.headers.authorization);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    };
    switch (behaviour as FakeModelListBehaviour) {
      case "ok":
        return json(200, { object: "list", data: this.models.map((id) => ({ id, object: "model", owned_by: "fake" })) });
      case "fail-401":
        return json(401, { error: { message: `Incorrect API key provided: ${request.headers.authorization}` } });
      case "fail-429":
        return json(429, { error: { message: "Rate limit reached" } }, { "retry-after": "7" });
      case "garbage":
        response.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
        return;
      case "wrong-shape":
        return json(200, { models: "none" });
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
      default:
        response.writeHead(404).end();
    }
  }
}
