// API keys on PostgreSQL with authentication on: created by an admin and shown once, accepted as
// `x-api-key` or `Authorization: Bearer` on /api and the LangGraph API, scoped, confined to their
// tenant and (when restricted) to their assistants, refused once revoked or expired, bad input refused
// with stable codes. A gateway without authentication still honours a presented key.
import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { hashApiKeySecret } from "../src/auth/apiKeySecrets";
import { apiRoutesOf } from "../src/auth/authentication";
import { ASSISTANT_CONFINED_ROUTES } from "../src/auth/routeScopes";
import { issueToken } from "../src/auth/tokenIssuer";
import { BODY_LIMIT_BYTES } from "../src/defaults";
import { type TestGateway, useGateway, useStoreEnv } from "./support";

const SECRET = "an-api-key-test-secret-of-32-characters!";
const KEY_SHAPE = /^lat_[A-Za-z0-9_-]{43}$/;

interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  scopes: string[];
  assistant_ids: string[] | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Requests as a client sends them: JSON bodies, a bearer token or `x-api-key`. */
function client(gateway: TestGateway) {
  const send = (method: string, url: string, credential: Record<string, string>, body?: unknown) =>
    gateway.app.inject({
      method: method as "GET",
      url,
      headers: { ...credential, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const apiKey = (key: string) => ({ "x-api-key": key });
  const createKey = async (admin: Record<string, string>, body: Record<string, unknown>): Promise<CreatedKey> => {
    const created = await send("POST", "/api/api-keys", admin, body);
    expect(created.statusCode, created.body).toBe(201);
    return created.json<CreatedKey>();
  };
  return { send, bearer, apiKey, createKey };
}

const refusedWith = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ code });
};

describe("API keys, authentication on, on PostgreSQL", () => {
  const storeEnv = useStoreEnv("postgresql");
  let admin: Record<string, string> = {};
  let otherAdmin: Record<string, string> = {};
  const gateway = useGateway(
    async ({ post }) => {
      admin = { authorization: `Bearer ${await issueToken({ secret: SECRET, tenantId: "keys-a", subject: "ops", scope: "admin", expiresIn: "1h" })}` };
      otherAdmin = { authorization: `Bearer ${await issueToken({ secret: SECRET, tenantId: "keys-b", subject: "ops", scope: "admin", expiresIn: "1h" })}` };
      for (const id of ["allowed", "hidden"]) expect((await post("/api/assistants", { id, name: id }, admin)).statusCode).toBe(201);
      for (const [thread_id, assistant_id] of [["allowed-thread", "allowed"], ["hidden-thread", "hidden"]]) {
        expect((await post("/api/threads", { thread_id, assistant_id }, admin)).statusCode).toBe(201);
      }
      expect((await post("/api/assistants", { id: "b-only", name: "B's" }, otherAdmin)).statusCode).toBe(201);
    },
    () => ({ ...storeEnv(), AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET }),
  );

  it("shows a key once, as lat_ and 43 base64url characters, and never again, by id or in the list", async () => {
    const { send, createKey } = client(gateway);
    const created = await createKey(admin, { name: "CI", scopes: ["write", "read"] });
    expect(created.key).toMatch(KEY_SHAPE);
    expect(created).toMatchObject({ name: "CI", tenant_id: "keys-a", scopes: ["read", "write"], assistant_ids: null, expires_at: null, last_used_at: null, revoked_at: null });
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const shown = await send("GET", `/api/api-keys/${created.id}`, admin);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).not.toHaveProperty("key");
    expect(shown.body).not.toContain(created.key);
    const listed = await send("GET", "/api/api-keys?limit=100", admin);
    expect(listed.json<{ api_keys: { id: string }[] }>().api_keys.map((key) => key.id)).toContain(created.id);
    expect(listed.body).not.toContain(created.key);
  });

  it("accepts a key as x-api-key and as a bearer token on /api and the LangGraph API, and records its use at most once a minute", async () => {
    const { send, bearer, apiKey, createKey } = client(gateway);
    const { id, key } = await createKey(admin, { name: "reader", scopes: ["read"] });
    expect((await send("GET", "/api/assistants", apiKey(key))).statusCode).toBe(200);
    expect((await send("GET", "/api/threads/allowed-thread", bearer(key))).statusCode).toBe(200);
    const searched = await send("POST", "/assistants/search", apiKey(key), {});
    expect(searched.json<{ assistant_id: string }[]>().map((assistant) => assistant.assistant_id)).toEqual(expect.arrayContaining(["allowed", "hidden"]));
    // The use is written in the background: read until it lands, then check a second use wrote nothing.
    let firstUse: string | null = null;
    for (let attempt = 0; attempt < 50 && firstUse === null; attempt += 1) {
      firstUse = (await send("GET", `/api/api-keys/${id}`, admin)).json<CreatedKey>().last_used_at;
      if (firstUse === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(firstUse).not.toBeNull();
    await send("GET", "/api/assistants", apiKey(key));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await send("GET", `/api/api-keys/${id}`, admin)).json<CreatedKey>().last_used_at).toBe(firstUse);
  });

  it("holds a key to its scope: read cannot write, write cannot manage keys", async () => {
    const { send, apiKey, createKey } = client(gateway);
    const reader = await createKey(admin, { name: "reader", scopes: ["read"] });
    refusedWith(await send("POST", "/api/threads", apiKey(reader.key), { assistant_id: "allowed" }), 403, "FORBIDDEN");
    const writer = await createKey(admin, { name: "writer", scopes: ["write"] });
    expect((await send("POST", "/api/threads", apiKey(writer.key), { assistant_id: "allowed" })).statusCode).toBe(201);
    refusedWith(await send("GET", "/api/api-keys", apiKey(writer.key)), 403, "FORBIDDEN");
    refusedWith(await send("POST", "/api/api-keys", apiKey(writer.key), { name: "escalate", scopes: ["admin"] }), 403, "FORBIDDEN");
    const keyAdmin = await createKey(admin, { name: "admin", scopes: ["admin"] });
    expect((await send("GET", "/api/api-keys", apiKey(keyAdmin.key))).statusCode).toBe(200);
  });

  it("refuses a revoked key from the next request, keeps it listed as revoked, and revoking again changes nothing", async () => {
    const { send, bearer, apiKey, createKey } = client(gateway);
    const { id, key } = await createKey(admin, { name: "leaked", scopes: ["read"] });
    expect((await send("GET", "/api/assistants", apiKey(key))).statusCode).toBe(200);
    expect((await send("DELETE", `/api/api-keys/${id}`, admin)).statusCode).toBe(204);
    for (const credential of [apiKey(key), bearer(key)]) {
      const refused = await send("GET", "/api/assistants", credential);
      refusedWith(refused, 401, "UNAUTHENTICATED");
      expect(refused.headers["www-authenticate"]).toMatch(/^Bearer realm="axiom-lattice", error="invalid_token"/);
    }
    const revoked = (await send("GET", `/api/api-keys/${id}`, admin)).json<CreatedKey>();
    expect(revoked.revoked_at).not.toBeNull();
    expect((await send("DELETE", `/api/api-keys/${id}`, admin)).statusCode).toBe(204);
    expect((await send("GET", `/api/api-keys/${id}`, admin)).json<CreatedKey>().revoked_at).toBe(revoked.revoked_at);
  });

  it("refuses an expired key", async () => {
    const { send, apiKey } = client(gateway);
    // Written past its expiry directly: the API refuses an expiry in the past.
    const key = `lat_${"e".repeat(43)}`;
    await gateway.context.stores.apiKeys.createApiKey("keys-a", {
      id: "expired-key",
      name: "expired",
      scope: "read",
      expiresAt: new Date(Date.now() - 1000),
      secretHash: hashApiKeySecret(key),
      prefix: key.slice(0, 12),
    });
    refusedWith(await send("GET", "/api/assistants", apiKey(key)), 401, "UNAUTHENTICATED");
    expect((await send("GET", "/api/api-keys/expired-key", admin)).json()).toMatchObject({ expires_at: expect.any(String), revoked_at: null });
  });

  it("refuses malformed, unknown and oversized keys with 401, before or after one lookup", async () => {
    const { send, bearer, apiKey } = client(gateway);
    const malformed = ["lat_short", `lat_${"a".repeat(44)}`, `lat_${"a".repeat(42)}!`, `lat_${"x".repeat(9000)}`, `lat_${"a".repeat(43)}`, "lat_"];
    for (const key of malformed) {
      for (const credential of [apiKey(key), bearer(key)]) {
        const refused = await send("GET", "/api/assistants", credential);
        expect(refused.statusCode, `${key.slice(0, 60)}: ${refused.body}`).toBe(401);
        expect(refused.json()).toMatchObject({ code: "UNAUTHENTICATED" });
        expect(refused.body).not.toContain("keys-a");
      }
    }
  });

  it("refuses bad input with stable codes, storing nothing", async () => {
    const { send } = client(gateway);
    const before = (await send("GET", "/api/api-keys?limit=1000", admin)).json<{ api_keys: unknown[] }>().api_keys.length;
    const bodies: unknown[] = [
      {},
      { name: "x" },
      { name: "x", scopes: "admin" },
      { name: "x", scopes: [] },
      { name: "x", scopes: ["root"] },
      { name: "x", scopes: ["Admin"] },
      { name: 5, scopes: ["read"] },
      { name: "", scopes: ["read"] },
      { name: "x".repeat(201), scopes: ["read"] },
      { name: "x", scopes: ["read"], assistant_ids: "allowed" },
      { name: "x", scopes: ["read"], assistant_ids: [] },
      { name: "x", scopes: ["read"], assistant_ids: ["../etc"] },
      { name: "x", scopes: ["read"], assistant_ids: Array.from({ length: 101 }, (_, i) => `a${i}`) },
      { name: "x", scopes: ["read"], expires_at: "tomorrow" },
      { name: "x", scopes: ["read"], expires_at: 1_900_000_000 },
      { name: "x", scopes: ["read"], expires_at: "2000-01-01T00:00:00Z" },
      { name: "x", scopes: ["read"], tenant_id: "keys-b" },
      [{ name: "x", scopes: ["read"] }],
    ];
    for (const body of bodies) refusedWith(await send("POST", "/api/api-keys", admin, body), 400, "INVALID_REQUEST");
    refusedWith(await send("POST", "/api/api-keys", admin, { name: "x", scopes: ["read"], assistant_ids: ["no-such-assistant"] }), 404, "NOT_FOUND");
    const notJson = await gateway.app.inject({ method: "POST", url: "/api/api-keys", headers: { ...admin, "content-type": "application/json" }, payload: "{name:" });
    refusedWith(notJson, 400, "INVALID_JSON");
    const huge = await send("POST", "/api/api-keys", admin, { name: "x".repeat(BODY_LIMIT_BYTES), scopes: ["read"] });
    refusedWith(huge, 413, "PAYLOAD_TOO_LARGE");
    for (const id of ["a".repeat(129), "bad%20id", "..%2F..%2Fetc", "%00"]) {
      refusedWith(await send("GET", `/api/api-keys/${id}`, admin), 400, "INVALID_REQUEST");
      refusedWith(await send("DELETE", `/api/api-keys/${id}`, admin), 400, "INVALID_REQUEST");
    }
    // Past the router's bound on any path parameter (256 characters): refused before routing.
    expect((await send("GET", `/api/api-keys/${"a".repeat(300)}`, admin)).statusCode).toBe(414);
    refusedWith(await send("GET", "/api/api-keys/no-such-key", admin), 404, "NOT_FOUND");
    refusedWith(await send("GET", "/api/api-keys?limit=0", admin), 400, "INVALID_REQUEST");
    refusedWith(await send("GET", "/api/api-keys?cursor=forged", admin), 400, "INVALID_CURSOR");
    expect((await send("GET", "/api/api-keys?limit=1000", admin)).json<{ api_keys: unknown[] }>().api_keys).toHaveLength(before);
  });

  it("keeps keys in their tenant: another tenant's key is a 404, its tenant's records are the only ones it reaches", async () => {
    const { send, apiKey, createKey } = client(gateway);
    const { id, key } = await createKey(admin, { name: "tenant A's", scopes: ["admin"] });
    refusedWith(await send("GET", `/api/api-keys/${id}`, otherAdmin), 404, "NOT_FOUND");
    refusedWith(await send("DELETE", `/api/api-keys/${id}`, otherAdmin), 404, "NOT_FOUND");
    expect((await send("GET", "/api/api-keys", otherAdmin)).body).not.toContain(id);
    refusedWith(await send("GET", "/api/assistants", { ...apiKey(key), "x-tenant-id": "keys-b" }), 403, "TENANT_MISMATCH");
    expect((await send("GET", "/api/assistants", { ...apiKey(key), "x-tenant-id": "keys-a" })).statusCode).toBe(200);
    refusedWith(await send("GET", "/api/assistants/b-only", apiKey(key)), 404, "NOT_FOUND");
    expect((await send("GET", "/api/assistants?limit=100", apiKey(key))).body).not.toContain("b-only");
    // Still A's key: B's revocation attempt above changed nothing.
    expect((await send("GET", `/api/api-keys/${id}`, admin)).json<CreatedKey>().revoked_at).toBeNull();
  });

  it("confines a restricted key to its assistants in both dialects, answering the others as missing", async () => {
    const { send, apiKey, createKey } = client(gateway);
    const restricted = await createKey(admin, { name: "bot", scopes: ["admin"], assistant_ids: ["allowed"] });
    expect(restricted.assistant_ids).toEqual(["allowed"]);
    const key = apiKey(restricted.key);
    const listed = await send("GET", "/api/assistants?limit=100", key);
    expect(listed.json<{ assistants: { id: string }[] }>().assistants.map((assistant) => assistant.id)).toEqual(["allowed"]);
    refusedWith(await send("GET", "/api/assistants/hidden", key), 404, "NOT_FOUND");
    refusedWith(await send("PATCH", "/api/assistants/hidden", key, { name: "taken" }), 404, "NOT_FOUND");
    refusedWith(await send("DELETE", "/api/assistants/hidden", key), 404, "NOT_FOUND");
    refusedWith(await send("POST", "/api/assistants", key, { id: "another", name: "more" }), 403, "FORBIDDEN");
    refusedWith(await send("POST", "/api/threads", key, { assistant_id: "hidden" }), 404, "NOT_FOUND");
    refusedWith(await send("GET", "/api/threads/hidden-thread", key), 404, "NOT_FOUND");
    expect((await send("GET", "/api/threads/allowed-thread", key)).statusCode).toBe(200);
    const threads = await send("GET", "/api/threads?limit=100", key);
    expect(threads.json<{ threads: { assistant_id: string }[] }>().threads.every((thread) => thread.assistant_id === "allowed")).toBe(true);
    refusedWith(await send("POST", "/api/runs", key, { assistant_id: "hidden", thread_id: "hidden-thread", message: "hi", mode: "wait" }), 404, "NOT_FOUND");
    const ran = await send("POST", "/api/runs", key, { assistant_id: "allowed", thread_id: "allowed-thread", message: "hi", mode: "wait" });
    expect(ran.statusCode, ran.body).toBe(200);

    // The LangGraph API: search, read, run and schedule only the allowed assistant.
    const searched = await send("POST", "/assistants/search", key, {});
    expect(searched.json<{ assistant_id: string }[]>().map((assistant) => assistant.assistant_id)).toEqual(["allowed"]);
    expect(await (await send("POST", "/assistants/count", key, {})).json()).toBe(1);
    for (const path of ["/assistants/hidden", "/assistants/hidden/schemas", "/assistants/hidden/graph"]) refusedWith(await send("GET", path, key), 404, "NOT_FOUND");
    expect((await send("GET", "/assistants/allowed", key)).statusCode).toBe(200);
    const input = { messages: [{ role: "user", content: "hi" }] };
    expect((await send("POST", "/threads", key, { thread_id: "lg-restricted" })).statusCode).toBe(200);
    refusedWith(await send("POST", "/threads/lg-restricted/runs/wait", key, { assistant_id: "hidden", input }), 404, "NOT_FOUND");
    expect((await send("POST", "/threads/lg-restricted/runs/wait", key, { assistant_id: "allowed", input })).statusCode).toBe(200);
    const threadsBefore = (await send("POST", "/threads/count", admin, {})).json<number>();
    refusedWith(await send("POST", "/runs/wait", key, { assistant_id: "hidden", input }), 404, "NOT_FOUND");
    refusedWith(await send("POST", "/runs/batch", key, [{ assistant_id: "allowed", input }, { assistant_id: "hidden", input }]), 404, "NOT_FOUND");
    expect((await send("POST", "/threads/count", admin, {})).json<number>()).toBe(threadsBefore);

    // A LangGraph thread the hidden assistant ran is as missing; so are its runs.
    expect((await send("POST", "/threads", admin, { thread_id: "lg-hidden" })).statusCode).toBe(200);
    const hiddenRun = await send("POST", "/threads/lg-hidden/runs/wait", admin, { assistant_id: "hidden", input });
    expect(hiddenRun.statusCode).toBe(200);
    const hiddenRunId = String(hiddenRun.headers["content-location"]).split("/").at(-1);
    for (const path of ["/threads/lg-hidden", "/threads/lg-hidden/state", "/threads/lg-hidden/runs", `/threads/lg-hidden/runs/${hiddenRunId}`]) {
      refusedWith(await send("GET", path, key), 404, "NOT_FOUND");
    }
    refusedWith(await send("POST", "/threads/lg-hidden/runs/wait", key, { assistant_id: "allowed", input }), 404, "NOT_FOUND");
    refusedWith(await send("POST", "/threads/lg-hidden/history", key, {}), 404, "NOT_FOUND");
    refusedWith(await send("POST", "/threads", key, { thread_id: "lg-hidden", if_exists: "do_nothing" }), 409, "ALREADY_EXISTS");
    expect((await send("GET", "/threads/lg-restricted/state", key)).statusCode).toBe(200);

    // Routes that are not confined to assistants refuse it: keys (it would hand out wider ones), projects, the store…
    for (const [method, path, body] of [
      ["POST", "/api/api-keys", { name: "wider", scopes: ["read"] }],
      ["GET", "/api/api-keys", undefined],
      ["GET", "/api/projects", undefined],
      ["GET", "/api/tasks", undefined],
      ["POST", "/threads/search", {}],
      ["POST", "/runs/crons/search", {}],
      ["POST", "/runs/crons", { assistant_id: "allowed", schedule: "0 * * * *", input }],
      ["POST", "/store/items/search", { namespace_prefix: [] }],
    ] as const) {
      refusedWith(await send(method, path, key, body), 403, "FORBIDDEN");
    }
  });

  it("lists as confined to assistants only routes that exist", () => {
    const routes = apiRoutesOf(gateway.app).map(({ method, url }) => `${method} ${url}`);
    for (const route of ASSISTANT_CONFINED_ROUTES) expect(routes, route).toContain(route);
  });
});

describe("API keys with authentication off (development mode)", () => {
  const gateway = useGateway();

  it("honours a presented key (its tenant, scope and assistants) and refuses a revoked one, while requests without one stay the tenant header's admin", async () => {
    const { send, apiKey, createKey } = client(gateway);
    const dev = { "x-tenant-id": "dev-keys" };
    for (const id of ["allowed", "hidden"]) expect((await send("POST", "/api/assistants", dev, { id, name: id })).statusCode).toBe(201);
    const { id, key } = await createKey(dev, { name: "reader", scopes: ["read"], assistant_ids: ["allowed"] });
    const listed = await send("GET", "/api/assistants", apiKey(key));
    expect(listed.json<{ assistants: { id: string }[] }>().assistants.map((assistant) => assistant.id)).toEqual(["allowed"]);
    refusedWith(await send("POST", "/api/threads", apiKey(key), { assistant_id: "allowed" }), 403, "FORBIDDEN");
    refusedWith(await send("GET", "/api/assistants", { ...apiKey(key), "x-tenant-id": "default" }), 403, "TENANT_MISMATCH");
    expect((await send("DELETE", `/api/api-keys/${id}`, dev)).statusCode).toBe(204);
    refusedWith(await send("GET", "/api/assistants", apiKey(key)), 401, "UNAUTHENTICATED");
    // A token that is not an API key is not checked without authentication, as before.
    expect((await send("GET", "/api/assistants", { ...dev, authorization: "Bearer some.jwt.token" })).statusCode).toBe(200);
  });
});
