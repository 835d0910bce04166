import { type Socket, connect } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { DRAIN_LIMIT_BYTES } from "../src/http/unreadBody";

/** Everything the server sends on `socket` until it has sent `count` complete answers, or closes. */
function answers(socket: Socket, count: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    const complete = () => (text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= count && /\r\n\r\n[\s\S]*\}\s*$/.test(text);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (complete()) resolve({ text, closed: false });
    });
    socket.on("close", () => resolve({ text, closed: true }));
    socket.on("error", () => undefined);
  });
}

const request = (path: string, body: Buffer) =>
  Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`),
    body,
  ]);

// A client that sends its whole body without waiting (no `Expect: 100-continue`), as fetch does.
describe("a body the gateway refuses", () => {
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it("is read to its end, so the client reads the 413 and its connection serves the next request", async () => {
    const socket = connect(port, "127.0.0.1");
    const received = answers(socket, 2);
    const oversize = Buffer.from(JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }));
    socket.write(request("/api/assistants", oversize));
    socket.write(request("/api/assistants", Buffer.from("{")));
    const { text, closed } = await received;
    socket.destroy();
    expect(closed).toBe(false);
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
    expect(statuses).toEqual(["413", "400"]);
    const [refusal, next] = text.split(/(?=HTTP\/1\.1 )/);
    expect(refusal).toContain('"code":"PAYLOAD_TOO_LARGE"');
    expect(refusal).not.toMatch(/^connection: close/im);
    expect(next).toContain('"code":"INVALID_JSON"');
  });

  it(`closes the connection rather than read more than ${DRAIN_LIMIT_BYTES / 1024 / 1024} MiB of it`, async () => {
    const socket = connect(port, "127.0.0.1");
    const received = answers(socket, 2);
    socket.write(`POST /api/assistants HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: ${DRAIN_LIMIT_BYTES + 1}\r\n\r\n`);
    const { text, closed } = await received;
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toMatch(/^connection: close/im);
  });
});
