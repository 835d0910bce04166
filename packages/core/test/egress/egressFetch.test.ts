import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EgressPolicy, type EgressResolver, checkEgressUrl, egressFetch, findEgressRefusal, parseEgressAllowList } from "../../src";

/** A real HTTP server on 127.0.0.1 that counts the requests it receives. */
class CountingServer {
  requests = 0;
  private readonly server: Server;

  constructor(answer: (respond: (status: number, headers?: Record<string, string>) => void) => void = (respond) => respond(200)) {
    this.server = createServer((_request, response) => {
      this.requests += 1;
      answer((status, headers) => response.writeHead(status, headers).end(`answer of ${this.port}`));
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  listen = () => new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  close = () => new Promise<void>((resolve) => this.server.close(() => resolve()));
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => findEgressRefusal(error)?.message ?? `not an egress refusal: ${String(error)}`,
  );

const target = new CountingServer();
const allowedTarget = new CountingServer();
const redirectTo = (location: () => string) => new CountingServer((respond) => respond(302, { location: location() }));
const toRefused = redirectTo(() => `${target.url}/v1/models`);
const toAllowed = redirectTo(() => `${allowedTarget.url}/v1/models`);
const servers = [target, allowedTarget, toRefused, toAllowed];

beforeAll(() => Promise.all(servers.map((server) => server.listen())));
afterAll(() => Promise.all(servers.map((server) => server.close())));

describe("egressFetch: every connection held to the policy", () => {
  it("refuses a loopback target with authentication on; the target receives nothing", async () => {
    const before = target.requests;
    const refused = await refusalOf(egressFetch({ localNetworks: false })(`${target.url}/v1/models`));
    expect(refused).toBe("address 127.0.0.1 is in the loopback range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it");
    expect(target.requests).toBe(before);
  });

  it("refuses localhost after resolving it (the system resolver); the target receives nothing", async () => {
    const before = target.requests;
    const refused = await refusalOf(egressFetch({ localNetworks: false })(`http://localhost:${target.port}/`));
    expect(refused).toMatch(/^host "localhost" \(address (127\.0\.0\.1|::1)\) is in the loopback range/);
    expect(target.requests).toBe(before);
  });

  it("reaches the target with authentication off, or when the allow-list names it", async () => {
    expect(await (await egressFetch({ localNetworks: true })(`${target.url}/`)).text()).toBe(`answer of ${target.port}`);
    expect(await (await egressFetch({ localNetworks: false, allow: parseEgressAllowList(`127.0.0.1:${target.port}`) })(`${target.url}/`)).text()).toBe(`answer of ${target.port}`);
    expect(await (await egressFetch({ localNetworks: false, allow: parseEgressAllowList(`localhost:${target.port}`) })(`http://localhost:${target.port}/`)).status).toBe(200);
  });

  it("checks the address dialled, not the one seen at write: a name rebound to loopback is refused", async () => {
    let answers = 0;
    // The first answer (the write check) is public, every later one (the connection) loopback.
    const rebinding: EgressResolver = async () => [{ address: answers++ === 0 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
    const policy: EgressPolicy = { localNetworks: false, resolve: rebinding };
    const url = `http://rebind.example.test:${target.port}/v1/models`;
    await checkEgressUrl(url, policy);
    const before = target.requests;
    expect(await refusalOf(egressFetch(policy)(url))).toBe('host "rebind.example.test" (address 127.0.0.1) is in the loopback range, which is refused; list it in AXIOM_UPSTREAM_ALLOW to allow it');
    expect(target.requests).toBe(before);
    expect(answers).toBe(2);
  });

  it("checks every redirect hop: an allowed upstream's 302 to a refused target is not followed there (UPSTREAM_REDIRECT_BLOCKED)", async () => {
    const policy: EgressPolicy = { localNetworks: false, allow: parseEgressAllowList(`127.0.0.1:${toRefused.port}, 127.0.0.1:${toAllowed.port}, 127.0.0.1:${allowedTarget.port}`) };
    const before = target.requests;
    const refusal = await egressFetch(policy)(`${toRefused.url}/v1/models`).then(() => undefined, findEgressRefusal);
    expect(refusal).toMatchObject({
      code: "UPSTREAM_REDIRECT_BLOCKED",
      message: `${toRefused.url} redirected to 127.0.0.1:${target.port}, which is refused: address 127.0.0.1 is not in AXIOM_UPSTREAM_ALLOW`,
    });
    expect(toRefused.requests).toBe(1);
    expect(target.requests).toBe(before);

    const answer = await egressFetch(policy)(`${toAllowed.url}/v1/models`);
    expect(await answer.text()).toBe(`answer of ${allowedTarget.port}`);
    expect(allowedTarget.requests).toBe(1);
  });
});
