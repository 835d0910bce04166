import { once } from "node:events";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { settlesWithin } from "./support";

// A gateway that closes refuses what arrives meanwhile, and does not wait on its clients' idle connections.

describe("a closing gateway", () => {
  it("refuses requests in the API's error shape, not Fastify's", async () => {
    const app = await buildGateway(loadConfig({}));
    // Held open, so requests arrive while the gateway is closing but still listening.
    let finishClosing = () => {};
    app.addHook("preClose", () => new Promise<void>((resolve) => (finishClosing = resolve)));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const closed = app.close();
    const response = await fetch(`${url}/api/threads`);
    const body: unknown = await response.json();
    finishClosing();
    await closed;
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(body).toMatchObject({ success: false, code: "NOT_READY", error: expect.stringContaining("shutting down") });
  });

  it("lets a response in flight end, and closes its kept-alive connection and a connection never used instead of waiting for their clients", async () => {
    const app = await buildGateway(loadConfig({}));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const headers = { "content-type": "application/json" };
    expect((await fetch(`${url}/api/assistants`, { method: "POST", headers, body: JSON.stringify({ id: "echo", name: "Echo", model: { provider: "scripted" } }) })).status).toBe(201);
    expect((await fetch(`${url}/api/threads`, { method: "POST", headers, body: JSON.stringify({ thread_id: "t", assistant_id: "echo" }) })).status).toBe(201);

    // fetch keeps its connection alive (the server allows 72 s) once the answer is read.
    const waiting = fetch(`${url}/api/runs`, { method: "POST", headers, body: JSON.stringify({ assistant_id: "echo", thread_id: "t", message: "/sleep 500", mode: "wait" }) });
    const runs = async () => ((await (await fetch(`${url}/api/threads/t/runs`)).json()) as { runs: { status: string }[] }).runs.map((run) => run.status);
    await expect.poll(runs).toEqual(["running"]);
    // A client's spare connection (a browser's preconnect): Node counts it busy until its first request.
    const spare = connect(Number(new URL(url).port), "127.0.0.1");
    await once(spare, "connect");
    spare.on("error", () => {}); // a reset is as good a close as any here
    const spareClosed = once(spare, "close");

    const closed = app.close();
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: "success" });
    await settlesWithin(closed, 10_000, "the gateway to close (a connection still open?)");
    await spareClosed;
  });
});
