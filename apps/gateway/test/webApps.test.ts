// Agent web apps on both store kinds: an operator publishes an assistant, end users chat on their own
// threads with tokens the host signs. Tokens never cross over, other users' threads are missing, bad
// input is refused with a stable code and stores nothing.
import { AFFINITY_ECHO_HEADER, REPLICA_HEADER } from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { issueToken } from "../src/auth/tokenIssuer";
import { useGateway, useStoreEnv } from "./support";

const OPERATOR_SECRET = "a-test-secret-of-at-least-32-characters!";
const RATE_LIMIT = 5;
const VISITOR_LIMIT = 4;

interface Claims {
  iss?: string;
  sub?: string;
  /** Seconds from now; absent: no exp claim. */
  expiresIn?: number;
}

/** A token as a host's backend signs it. */
const hostToken = (secret: string, { iss, sub, expiresIn }: Claims) => {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: "HS256", typ: "JWT" });
  if (iss !== undefined) jwt.setIssuer(iss);
  if (sub !== undefined) jwt.setSubject(sub);
  if (expiresIn !== undefined) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
};

/** The `data` of each event of an SSE body, with its id. */
const events = (body: string) =>
  body
    .split("\n\n")
    .filter((frame) => /^data: /m.test(frame))
    .map((frame): Record<string, unknown> => ({ id: /^id: (.*)$/m.exec(frame)?.[1], ...(JSON.parse(/^data: (.*)$/m.exec(frame)![1]) as Record<string, unknown>) }));

describe.each(["memory", "postgresql"])("web apps on %s stores", (stores) => {
  const storeEnv = useStoreEnv(stores);
  let operator = "";
  const gateway = useGateway(
    async () => {
      operator = await issueToken({ secret: OPERATOR_SECRET, tenantId: "shop", subject: "ops", scope: "admin", expiresIn: "1h" });
      expect((await gateway.post("/api/assistants", { id: "helper", name: "Helper" }, auth(operator))).statusCode).toBe(201);
    },
    () => ({
      ...storeEnv(),
      AUTH_REQUIRED: "true",
      AUTH_TOKEN_SECRET: OPERATOR_SECRET,
      AXIOM_WEB_APP_RUN_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      AXIOM_WEB_APP_VISITOR_RATE_LIMIT_PER_MINUTE: String(VISITOR_LIMIT),
    }),
  );
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const inject = (method: "POST" | "PATCH" | "GET" | "DELETE", url: string, token?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method,
      url,
      headers: { ...(token ? auth(token) : {}), ...(payload === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  /** A web app with a secret, `published` unless told otherwise. */
  const publish = async (status = "published") => {
    const created = await inject("POST", "/api/web-apps", operator, {
      assistant_id: "helper",
      name: "Shop help",
      status,
      appearance: { title: "Help", welcome: "Hi! Ask me anything.", quicks: [{ label: "Hours", text: "When are you open?" }], accent_color: "#0a7" },
      allowed_origins: ["https://shop.example.test"],
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { id: string }).id;
    const rotated = await inject("POST", `/api/web-apps/${id}/secret`, operator);
    expect(rotated.statusCode).toBe(200);
    const { secret } = rotated.json() as { secret: string };
    const tokenFor = (sub: string, claims: Claims = {}) => hostToken(secret, { iss: id, sub, expiresIn: 600, ...claims });
    return { id, secret, tokenFor };
  };

  const openThread = async (id: string, token: string) => {
    const opened = await inject("POST", `/web-apps/${id}/threads`, token, {});
    expect(opened.statusCode).toBe(201);
    return (opened.json() as { thread_id: string }).thread_id;
  };

  it("lets an operator create, read, list, change and delete a web app, never answering a secret but once", async () => {
    const { id, secret } = await publish("draft");
    const read = await inject("GET", `/api/web-apps/${id}`, operator);
    expect(read.json()).toMatchObject({ id, tenant_id: "shop", assistant_id: "helper", status: "draft", identity: { mode: "signed" }, has_secret: true, allowed_origins: ["https://shop.example.test"] });
    const listed = await inject("GET", "/api/web-apps?limit=100", operator);
    expect((listed.json() as { web_apps: { id: string }[] }).web_apps.map((webApp) => webApp.id)).toContain(id);
    const changed = await inject("PATCH", `/api/web-apps/${id}`, operator, { status: "published", appearance: { welcome: null, quicks: [] } });
    expect(changed.json()).toMatchObject({ status: "published", appearance: { title: "Help", quicks: [] } });
    expect((changed.json() as { appearance: object }).appearance).not.toHaveProperty("welcome");
    for (const answer of [read, listed, changed]) expect(answer.body).not.toContain(secret);
    const rotated = await inject("POST", `/api/web-apps/${id}/secret`, operator);
    expect(rotated.json()).toMatchObject({ secret: expect.any(String), previous_secret_valid_until: expect.any(String) });
    expect((await inject("DELETE", `/api/web-apps/${id}`, operator)).statusCode).toBe(204);
    expect((await inject("GET", `/api/web-apps/${id}`, operator)).statusCode).toBe(404);
    expect((await inject("GET", `/web-apps/${id}/config`)).statusCode).toBe(404);
  });

  it.each([
    ["a quick prompt label of 41 characters", { appearance: { quicks: [{ label: "x".repeat(41), text: "t" }] } }, 400, "INVALID_REQUEST"],
    ["a quick prompt with an extra key", { appearance: { quicks: [{ label: "l", text: "t", icon: "i" }] } }, 400, "INVALID_REQUEST"],
    ["7 quick prompts", { appearance: { quicks: Array.from({ length: 7 }, () => ({ label: "l", text: "t" })) } }, 400, "INVALID_REQUEST"],
    ["an origin with a path", { allowed_origins: ["https://shop.example.test/chat"] }, 400, "INVALID_REQUEST"],
    ["an unknown status", { status: "live" }, 400, "INVALID_REQUEST"],
    ["an unknown field", { secret: "mine" }, 400, "INVALID_REQUEST"],
    ["an unknown assistant", { assistant_id: "nobody" }, 404, "NOT_FOUND"],
    ["an unknown identity mode", { identity: { mode: "guest" } }, 400, "INVALID_REQUEST"],
  ])("refuses a web app with %s and stores nothing", async (_what, change, status, code) => {
    const before = (await inject("GET", "/api/web-apps?limit=100", operator)).json() as { web_apps: unknown[] };
    const refused = await inject("POST", "/api/web-apps", operator, { assistant_id: "helper", name: "Refused", ...change });
    expect(refused.statusCode).toBe(status);
    expect(refused.json()).toMatchObject({ success: false, code });
    expect(((await inject("GET", "/api/web-apps?limit=100", operator)).json() as { web_apps: unknown[] }).web_apps).toHaveLength(before.web_apps.length);
  });

  it("answers the public appearance of a published web app", async () => {
    const { id } = await publish();
    const config = await inject("GET", `/web-apps/${id}/config`);
    expect(config.statusCode).toBe(200);
    expect(config.json()).toEqual({ id, name: "Shop help", title: "Help", welcome: "Hi! Ask me anything.", quicks: [{ label: "Hours", text: "When are you open?" }], accent_color: "#0a7", allowed_origins: ["https://shop.example.test"], identity: { mode: "signed" } });
  });

  it("streams an end user's message projected for the page, with the SSE and replica headers, and keeps the thread theirs", async () => {
    const { id, tokenFor } = await publish();
    const ada = await tokenFor("ada@example.test");
    const threadId = await openThread(id, ada);
    const streamed = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, ada, { message: "hello there", message_id: `m-${threadId}` }, { "x-axiom-affinity": "replica-7" });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(streamed.headers["cache-control"]).toBe("no-cache, no-transform");
    expect(streamed.headers["x-accel-buffering"]).toBe("no");
    expect(streamed.headers[REPLICA_HEADER]).toBe(gateway.context.replicaId);
    expect(streamed.headers[AFFINITY_ECHO_HEADER]).toBe("replica-7");
    expect(String(streamed.headers["access-control-expose-headers"]).split(/,\s*/)).toEqual(expect.arrayContaining([REPLICA_HEADER, AFFINITY_ECHO_HEADER]));
    const page = events(streamed.body);
    expect(page.filter((event) => event.type === "text").map((event) => event.text).join("")).toBe("echo: hello there");
    expect(page.at(-1)).toMatchObject({ type: "done", status: "success" });
    expect(page[0].id).toBe(`m-${threadId}:0`);

    const thread = await inject("GET", `/web-apps/${id}/threads/${threadId}`, ada);
    expect(thread.json()).toMatchObject({ thread_id: threadId, messages: [{ role: "user", content: "hello there" }, { role: "assistant", content: "echo: hello there" }], interrupts: [] });
    const listed = await inject("GET", `/web-apps/${id}/threads`, ada);
    expect(listed.json()).toMatchObject({ threads: [{ thread_id: threadId }], next_cursor: null, has_more: false });

    const native = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream/native`, ada, { message: "again" });
    expect(events(native.body).at(-1)).toMatchObject({ type: "message_completed" });
    const resumed = await inject("POST", `/web-apps/${id}/threads/${threadId}/resume_stream`, ada, {}, { "last-event-id": `m-${threadId}:0` });
    expect(resumed.statusCode).toBe(200);
    expect(events(resumed.body)[0].id).toBe(`m-${threadId}:1`);
    expect(events(resumed.body).at(-1)).toMatchObject({ type: "done" });
  });

  it("answers 404 for another user's thread on every route", async () => {
    const { id, tokenFor } = await publish();
    const threadId = await openThread(id, await tokenFor("ada"));
    const bob = await tokenFor("bob");
    const base = `/web-apps/${id}/threads/${threadId}`;
    for (const [method, url, payload] of [
      ["GET", base, undefined],
      ["POST", `${base}/stream`, { message: "hi" }],
      ["POST", `${base}/stream/native`, { message: "hi" }],
      ["POST", `${base}/resume_stream`, { message_id: "m1" }],
      ["POST", `${base}/interrupts/i1/resume`, { response: "yes" }],
      ["POST", `/web-apps/${id}/runs`, { thread_id: threadId, message: "hi" }],
    ] as const) {
      const answer = await inject(method, url, bob, payload);
      expect(answer.statusCode, `${method} ${url}`).toBe(404);
      expect(answer.json()).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await inject("GET", `/web-apps/${id}/threads`, bob)).json()).toMatchObject({ threads: [] });
  });

  it("refuses tokens that are not this web app's user's, and never crosses over to the operator API", async () => {
    const { id, secret, tokenFor } = await publish();
    const other = await publish();
    const threadId = await openThread(id, await tokenFor("ada"));
    const url = `/web-apps/${id}/threads/${threadId}`;
    const refused: [string, string | undefined, number, string][] = [
      ["no token", undefined, 401, "UNAUTHENTICATED"],
      ["another web app's token", await other.tokenFor("ada"), 401, "UNAUTHENTICATED"],
      ["a token issued for another web app with this one's secret", await hostToken(secret, { iss: other.id, sub: "ada", expiresIn: 600 }), 401, "UNAUTHENTICATED"],
      ["an operator token", operator, 401, "UNAUTHENTICATED"],
      ["an expired token", await tokenFor("ada", { expiresIn: -60 }), 401, "TOKEN_EXPIRED"],
      ["a forged token", await hostToken("not-the-secret", { iss: id, sub: "ada", expiresIn: 600 }), 401, "UNAUTHENTICATED"],
      ["a token without exp", await tokenFor("ada", { expiresIn: undefined }), 401, "UNAUTHENTICATED"],
      ["a bad subject", await tokenFor("ada smith"), 401, "UNAUTHENTICATED"],
      ["a subject of 129 characters", await tokenFor("a".repeat(129)), 401, "UNAUTHENTICATED"],
    ];
    for (const [what, token, status, code] of refused) {
      const answer = await inject("GET", url, token);
      expect(answer.statusCode, what).toBe(status);
      expect(answer.json(), what).toMatchObject({ code });
    }
    // A web-app token opens nothing of the operator's API.
    const ada = await tokenFor("ada");
    for (const path of ["/api/web-apps", "/api/threads", `/api/threads/${threadId}`]) expect((await inject("GET", path, ada)).statusCode, path).toBe(401);
  });

  it("keeps the replaced secret valid through its grace period", async () => {
    const { id, tokenFor } = await publish();
    const before = await tokenFor("ada");
    const rotated = (await inject("POST", `/api/web-apps/${id}/secret`, operator)).json() as { secret: string };
    expect((await inject("GET", `/web-apps/${id}/threads`, before)).statusCode).toBe(200);
    const after = await hostToken(rotated.secret, { iss: id, sub: "ada", expiresIn: 600 });
    expect((await inject("GET", `/web-apps/${id}/threads`, after)).statusCode).toBe(200);
  });

  it("opens a draft only to a preview token, and a disabled web app to nobody", async () => {
    const { id, tokenFor } = await publish("draft");
    const ada = await tokenFor("ada");
    expect((await inject("GET", `/web-apps/${id}/threads`, ada)).json()).toMatchObject({ code: "FORBIDDEN" });
    expect((await inject("GET", `/web-apps/${id}/config`)).statusCode).toBe(401);
    const minted = await inject("POST", `/api/web-apps/${id}/preview-token`, operator, { user_id: "operator-preview" });
    expect(minted.json()).toMatchObject({ user_id: "operator-preview", token: expect.any(String), expires_at: expect.any(String) });
    const preview = (minted.json() as { token: string }).token;
    const threadId = await openThread(id, preview);
    const streamed = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, preview, { message: "draft check" });
    expect(events(streamed.body).at(-1)).toMatchObject({ type: "done" });
    expect((await inject("GET", `/web-apps/${id}/config`, preview)).statusCode).toBe(200);
    // A preview token is the operator's: minted for their tenant's web app only, and never by a host.
    expect((await inject("POST", `/api/web-apps/${id}/preview-token`, await issueToken({ secret: OPERATOR_SECRET, tenantId: "elsewhere", subject: "x", scope: "admin", expiresIn: "1h" }))).statusCode).toBe(404);

    expect((await inject("PATCH", `/api/web-apps/${id}`, operator, { status: "disabled" })).statusCode).toBe(200);
    for (const token of [preview, ada]) expect((await inject("GET", `/web-apps/${id}/threads/${threadId}`, token)).json()).toMatchObject({ code: "FORBIDDEN" });
    expect((await inject("GET", `/web-apps/${id}/config`)).statusCode).toBe(403);
  });

  it("ends a web app's open streams when an operator disables it, here or on a peer", async () => {
    const { id, tokenFor } = await publish();
    const dave = await tokenFor("dave");
    const threadId = await openThread(id, dave);
    const slow = `/drip 200 ${Array.from({ length: 30 }, (_, index) => `w${index}`).join(" ")}`;
    // Sent now (an inject is sent once awaited), answered when the stream ends.
    const streamed = inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, dave, { message: slow }).then((response) => response);
    await eventually("the run started", async () => (await gateway.context.stores.queue.getProcessingMessages({ tenantId: "shop", assistantId: "helper", threadId })).length > 0);
    const started = Date.now();
    expect((await inject("PATCH", `/api/web-apps/${id}`, operator, { status: "disabled" })).statusCode).toBe(200);
    const ended = await streamed;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(events(ended.body).map((event) => event.type)).not.toContain("done");
    expect((await inject("POST", `/web-apps/${id}/threads/${threadId}/resume_stream`, dave, { message_id: "any" })).statusCode).toBe(403);

    // A peer disabled it: this replica hears of it through the outbox, and reads the web app again.
    const peer = await publish();
    const erin = await peer.tokenFor("erin");
    const peerThread = await openThread(peer.id, erin);
    const following = inject("POST", `/web-apps/${peer.id}/threads/${peerThread}/stream`, erin, { message: slow }).then((response) => response);
    await eventually("the peer's run started", async () => (await gateway.context.stores.queue.getProcessingMessages({ tenantId: "shop", assistantId: "helper", threadId: peerThread })).length > 0);
    await gateway.context.stores.webApps.updateWebApp("shop", peer.id, { status: "disabled" });
    await gateway.context.webApps.refresh(peer.id);
    expect(events((await following).body).map((event) => event.type)).not.toContain("done");
  });

  it("queues a run with 202, and refuses a missing thread_id, an oversize message or an unknown field, queuing nothing", async () => {
    const { id, tokenFor } = await publish();
    const carol = await tokenFor("carol");
    const threadId = await openThread(id, carol);
    const queued = await inject("POST", `/web-apps/${id}/runs`, carol, { thread_id: threadId, message: "later" });
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toEqual({ success: true, message_id: expect.any(String), queued: true });
    expect(queued.headers[REPLICA_HEADER]).toBe(gateway.context.replicaId);
    for (const [what, payload] of [
      ["a missing thread_id", { message: "hi" }],
      ["a message of 32,769 characters", { thread_id: threadId, message: "x".repeat(32_769) }],
      ["an empty message", { thread_id: threadId, message: "" }],
      ["an unknown field", { thread_id: threadId, message: "hi", model: "gpt" }],
    ] as const) {
      const answer = await inject("POST", `/web-apps/${id}/runs`, carol, payload);
      expect(answer.statusCode, what).toBe(400);
      expect(answer.json(), what).toMatchObject({ code: "INVALID_REQUEST" });
    }
    const oversize = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, carol, { message: "x".repeat(32_769) });
    expect(oversize.statusCode).toBe(400);
    // Once the queued run finished, it is the thread's only one: nothing else was queued.
    const scope = { tenantId: "shop", assistantId: "helper" };
    const { queue } = gateway.context.stores;
    await eventually("the queued run finished", async () => (await queue.getQueueSize({ ...scope, threadId })) === 0);
    expect((await queue.listRuns({ ...scope, threadId }, { limit: 100 })).items).toHaveLength(1);
  });

  it("runs with a model_key the assistant's provider offers, and refuses any other, queuing nothing", async () => {
    expect((await inject("POST", "/api/model-providers", operator, { id: "house", kind: "scripted", models: ["small", "large"] })).statusCode).toBe(201);
    expect((await inject("POST", "/api/assistants", operator, { id: "housed", name: "Housed", model: { provider: "house" } })).statusCode).toBe(201);
    const created = await inject("POST", "/api/web-apps", operator, { assistant_id: "housed", name: "Models", status: "published" });
    const id = (created.json() as { id: string }).id;
    const { secret } = (await inject("POST", `/api/web-apps/${id}/secret`, operator)).json() as { secret: string };
    const frank = await hostToken(secret, { iss: id, sub: "frank", expiresIn: 600 });
    const threadId = await openThread(id, frank);
    const streamed = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, frank, { message: "hi", model_key: "large" });
    expect(events(streamed.body).at(-1)).toMatchObject({ type: "done", status: "success" });
    const scope = { tenantId: "shop", assistantId: "housed" };
    const [run] = (await gateway.context.stores.queue.listRuns({ ...scope, threadId }, { limit: 10 })).items;
    expect(run.content).toMatchObject({ graph: { settings: { model: { provider: "house", model: "large" } } } });
    for (const model_key of ["huge", ""]) {
      const refused = await inject("POST", `/web-apps/${id}/runs`, frank, { thread_id: threadId, message: "hi", model_key });
      expect(refused.statusCode, model_key).toBe(400);
      expect(refused.json()).toMatchObject({ code: "INVALID_REQUEST" });
    }
    expect(await gateway.context.stores.queue.getQueueSize({ ...scope, threadId })).toBe(0);
    expect((await inject("POST", `/web-apps/${id}/runs`, frank, { thread_id: threadId, message: "hi", model_key: "small" })).statusCode).toBe(202);
  });

  describe("in anonymous mode", () => {
    /** An anonymous web app, with a signing secret issued (which must then sign nothing). */
    const publishAnonymous = async (status = "published") => {
      const app = await publish(status);
      expect((await inject("PATCH", `/api/web-apps/${app.id}`, operator, { identity: { mode: "anonymous" } })).json()).toMatchObject({ identity: { mode: "anonymous" } });
      return app;
    };
    /** A visitor token, from a client address of its own (each test's visitors stay under the per-address limit). */
    const visitor = async (id: string, address: string, token?: string) => {
      const admitted = await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: address, headers: token ? auth(token) : {} });
      expect(admitted.statusCode, admitted.body).toBe(201);
      return admitted.json() as { token: string; user_id: string; expires_at: string };
    };

    it("admits visitors with ids the gateway chooses, each seeing only their own threads", async () => {
      const { id } = await publishAnonymous();
      expect((await inject("GET", `/web-apps/${id}/config`)).json()).toMatchObject({ identity: { mode: "anonymous" } });
      const ada = await visitor(id, "10.0.1.1");
      const bob = await visitor(id, "10.0.1.1");
      expect(ada.user_id).toMatch(/^visitor:[0-9a-f-]{36}$/);
      expect(bob.user_id).not.toBe(ada.user_id);
      expect(Date.parse(ada.expires_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      const threadId = await openThread(id, ada.token);
      const streamed = await inject("POST", `/web-apps/${id}/threads/${threadId}/stream`, ada.token, { message: "anyone there?" });
      expect(events(streamed.body).at(-1)).toMatchObject({ type: "done", status: "success" });
      expect((await inject("GET", `/web-apps/${id}/threads/${threadId}`, bob.token)).statusCode).toBe(404);
      expect((await inject("GET", `/web-apps/${id}/threads`, bob.token)).json()).toMatchObject({ threads: [] });
      // Renewed with their own token, a visitor stays the same user and keeps their threads.
      const renewed = await visitor(id, "10.0.1.1", ada.token);
      expect(renewed.user_id).toBe(ada.user_id);
      expect((await inject("GET", `/web-apps/${id}/threads`, renewed.token)).json()).toMatchObject({ threads: [{ thread_id: threadId }] });
      // A visitor token opens nothing of the operator's API.
      expect((await inject("GET", "/api/threads", ada.token)).statusCode).toBe(401);
    });

    it("refuses host-signed tokens while anonymous, and visitor tokens once signed again", async () => {
      const { id, tokenFor } = await publishAnonymous();
      const hostSigned = await tokenFor("visitor:00000000-0000-0000-0000-000000000000");
      expect((await inject("GET", `/web-apps/${id}/threads`, hostSigned)).json()).toMatchObject({ code: "UNAUTHENTICATED" });
      // Only a visitor's own token renews: a host-signed one is refused, not ignored.
      expect((await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: "10.0.2.1", headers: auth(hostSigned) })).statusCode).toBe(401);
      const { token } = await visitor(id, "10.0.2.1");
      expect((await inject("PATCH", `/api/web-apps/${id}`, operator, { identity: { mode: "signed" } })).statusCode).toBe(200);
      expect((await inject("GET", `/web-apps/${id}/threads`, token)).json()).toMatchObject({ code: "UNAUTHENTICATED" });
      expect((await inject("GET", `/web-apps/${id}/threads`, await tokenFor("ada"))).statusCode).toBe(200);
      const signed = await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: "10.0.2.2" });
      expect(signed.statusCode).toBe(403);
      expect(signed.json()).toMatchObject({ code: "FORBIDDEN" });
    });

    it("admits no visitor to a draft or a disabled web app, and the preview token still opens the draft", async () => {
      const { id } = await publishAnonymous("draft");
      const refused = await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: "10.0.3.1" });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: "FORBIDDEN" });
      const preview = ((await inject("POST", `/api/web-apps/${id}/preview-token`, operator, {})).json() as { token: string }).token;
      expect((await inject("GET", `/web-apps/${id}/threads`, preview)).statusCode).toBe(200);
      expect((await inject("PATCH", `/api/web-apps/${id}`, operator, { status: "disabled" })).statusCode).toBe(200);
      expect((await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: "10.0.3.1" })).statusCode).toBe(403);
      expect((await gateway.app.inject({ method: "POST", url: "/web-apps/webapp-none/visitors", remoteAddress: "10.0.3.1" })).statusCode).toBe(404);
    });

    it(`limits new visitors to ${VISITOR_LIMIT} a minute per address, and holds each visitor to ${RATE_LIMIT} runs a minute`, async () => {
      const { id } = await publishAnonymous();
      const tokens: string[] = [];
      for (let admitted = 0; admitted < VISITOR_LIMIT; admitted += 1) tokens.push((await visitor(id, "10.0.4.1")).token);
      const limited = await gateway.app.inject({ method: "POST", url: `/web-apps/${id}/visitors`, remoteAddress: "10.0.4.1" });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: "RATE_LIMITED" });
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      await visitor(id, "10.0.4.2");

      const [hasty] = tokens;
      const threadId = await openThread(id, hasty);
      for (let run = 0; run < RATE_LIMIT; run += 1) expect((await inject("POST", `/web-apps/${id}/runs`, hasty, { thread_id: threadId, message: `run ${run}` })).statusCode).toBe(202);
      expect((await inject("POST", `/web-apps/${id}/runs`, hasty, { thread_id: threadId, message: "one too many" })).statusCode).toBe(429);
    });
  });

  it(`holds each end user to ${RATE_LIMIT} runs a minute, answering 429 with Retry-After`, async () => {
    const { id, tokenFor } = await publish();
    const hasty = await tokenFor("hasty");
    const threadId = await openThread(id, hasty);
    for (let run = 0; run < RATE_LIMIT; run += 1) expect((await inject("POST", `/web-apps/${id}/runs`, hasty, { thread_id: threadId, message: `run ${run}` })).statusCode).toBe(202);
    const limited = await inject("POST", `/web-apps/${id}/runs`, hasty, { thread_id: threadId, message: "one too many" });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Another user of the same web app is not held by it.
    const calm = await tokenFor("calm");
    expect((await inject("POST", `/web-apps/${id}/runs`, calm, { thread_id: await openThread(id, calm), message: "hi" })).statusCode).toBe(202);
  });
});

describe("web apps and the tenant's run rate limit", () => {
  const gateway = useGateway(async () => {}, () => ({ AXIOM_RUN_RATE_LIMIT_PER_MINUTE: "2", AXIOM_WEB_APP_RUN_RATE_LIMIT_PER_MINUTE: "100" }));

  it("holds the web app's end users together to the tenant's limit", async () => {
    const json = { "content-type": "application/json" };
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => gateway.app.inject({ method: "POST", url, headers: { ...json, ...headers }, payload: JSON.stringify(payload) });
    expect((await post("/api/assistants", { id: "helper", name: "Helper" })).statusCode).toBe(201);
    const { id } = (await post("/api/web-apps", { assistant_id: "helper", name: "Limited", status: "published" })).json() as { id: string };
    const { secret } = (await post(`/api/web-apps/${id}/secret`, {})).json() as { secret: string };
    const statuses: number[] = [];
    for (const user of ["u1", "u2", "u3"]) {
      const bearer = { authorization: `Bearer ${await hostToken(secret, { iss: id, sub: user, expiresIn: 600 })}` };
      const { thread_id } = (await post(`/web-apps/${id}/threads`, {}, bearer)).json() as { thread_id: string };
      statuses.push((await post(`/web-apps/${id}/runs`, { thread_id, message: "hi" }, bearer)).statusCode);
    }
    expect(statuses).toEqual([202, 202, 429]);
  });
});
