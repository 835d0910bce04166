import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";

/** One client connection and its upstream side; chunks wait in `held` while the proxy is paused. */
interface Link {
  client: Socket;
  upstream?: Socket;
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

/**
 * A TCP proxy in front of a server (PostgreSQL) that a test can break as networks break:
 * `pause()` is a partition (connections are accepted and kept, nothing flows either way, nothing is
 * refused or reset: every wait runs into its timeout), `cut()` drops every connection at once (a
 * restart, a failover, a proxy's idle timeout), `resume()` lets traffic flow again, what was held first.
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private paused = false;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on("connection", (client) => this.accept(client));
  }

  /** Listens on a free loopback port, forwarding to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    return new TcpProxy(server, target);
  }

  /** A proxy in front of the server of a postgres:// URL. */
  static forUrl(databaseUrl: string): Promise<TcpProxy> {
    const url = new URL(databaseUrl);
    return TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = "127.0.0.1";
    url.port = String(this.port);
    return url.toString();
  }

  /** Connections open through the proxy. */
  get connections(): number {
    return this.links.size;
  }

  /** Partition: nothing flows in either direction until `resume()`; new connections hang unanswered. */
  pause(): void {
    this.paused = true;
  }

  /** Lets traffic flow again: held chunks first, and connections accepted meanwhile reach the server. */
  resume(): void {
    this.paused = false;
    for (const link of this.links) {
      if (!link.upstream) this.connectUpstream(link);
      else this.flush(link);
    }
  }

  /** Drops every open connection at once (both sides reset); new ones are still accepted. */
  cut(): void {
    for (const link of this.links) this.drop(link);
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const link: Link = { client, held: { toUpstream: [], toClient: [] } };
    this.links.add(link);
    client.on("data", (chunk) => this.forward(link, "toUpstream", chunk));
    client.on("error", () => this.drop(link));
    client.on("close", () => this.drop(link));
    if (!this.paused) this.connectUpstream(link);
  }

  private connectUpstream(link: Link): void {
    const upstream = connect(this.target.port, this.target.host);
    link.upstream = upstream;
    upstream.on("connect", () => this.flush(link));
    upstream.on("data", (chunk) => this.forward(link, "toClient", chunk));
    upstream.on("error", () => this.drop(link));
    upstream.on("close", () => this.drop(link));
  }

  private forward(link: Link, direction: "toUpstream" | "toClient", chunk: Buffer): void {
    link.held[direction].push(chunk);
    this.flush(link);
  }

  private flush(link: Link): void {
    if (this.paused || !link.upstream || link.upstream.connecting) return;
    for (const chunk of link.held.toUpstream.splice(0)) link.upstream.write(chunk);
    for (const chunk of link.held.toClient.splice(0)) link.client.write(chunk);
  }

  private drop(link: Link): void {
    if (!this.links.delete(link)) return;
    link.client.resetAndDestroy();
    link.upstream?.resetAndDestroy();
  }
}
