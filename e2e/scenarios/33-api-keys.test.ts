import { type TestDatabase, createTestDatabase } from "@axiom-lattice/testing";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, eventually, expectOk } from "../harness/client";
import { say } from "../harness/langgraphSdk";
import { Replica, printLogsOnFailure, startReplicas } from "../harness/replica";

// Issue 39: API keys on two replicas on PostgreSQL (authentication on, as every replica of the suite).
// A key made on replica A drives replica B through the unmodified LangGraph SDK (`new Client({ apiKey })`),
// confined to the one assistant it is restricted to; revoked on A, it is refused on B within a second;
// its use on B shows on A.

const TENANT = "e2e-api-keys";
const admin = { "x-tenant-id": TENANT };
/** The bound: a key revoked on one replica is refused by the others within a second. */
const REFUSED_WITHIN_MS = 1000;

interface CreatedKey {
  id: string;
  key: string;
  last_used_at: string | null;
}

describe("scenario 33: API keys across two replicas on PostgreSQL", () => {
  let database: TestDatabase;
  let replicas: Replica[] = [];
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    database = await createTestDatabase("lattice_e2e_api_keys");
    replicas = await startReplicas(2, { databaseUrl: database.url, prefix: "keys" });
    [a, b] = replicas;
    for (const id of ["keyed", "unkeyed"]) await expectOk(call(a.url, "POST", "/api/assistants", { id, name: id }, admin), 201);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await database?.drop();
  });

  it("a key made on A runs its assistant on B through the LangGraph SDK, and nothing else", async () => {
    printLogsOnFailure(() => replicas);
    const { key, id } = await expectOk<CreatedKey>(call(a.url, "POST", "/api/api-keys", { name: "sdk", scopes: ["write"], assistant_ids: ["keyed"] }, admin), 201);
    const client = new Client({ apiUrl: b.url, apiKey: key });
    expect((await client.assistants.search()).map((assistant) => assistant.assistant_id)).toEqual(["keyed"]);
    await expect(client.assistants.get("unkeyed")).rejects.toThrow(/404/);
    const { thread_id } = await client.threads.create();
    const values = (await client.runs.wait(thread_id, "keyed", { input: say("hello through a key") })) as { messages: { content: unknown }[] };
    expect(JSON.stringify(values.messages.at(-1)?.content)).toContain("hello through a key");
    await expect(client.runs.wait(thread_id, "unkeyed", { input: say("not mine") })).rejects.toThrow(/404/);
    // Its use on B is recorded, and A shows it.
    await eventually(async () => (await expectOk<CreatedKey>(call(a.url, "GET", `/api/api-keys/${id}`, undefined, admin))).last_used_at ?? undefined, 10_000, "the use on B, seen on A");
  });

  it("a key revoked on A is refused on B within a second, through the SDK too", async () => {
    printLogsOnFailure(() => replicas);
    const { key, id } = await expectOk<CreatedKey>(call(a.url, "POST", "/api/api-keys", { name: "to revoke", scopes: ["read"] }, admin), 201);
    const asKey = { authorization: `Bearer ${key}` };
    expect((await call(b.url, "GET", "/assistants/keyed", undefined, asKey)).status).toBe(200);

    expect((await call(a.url, "DELETE", `/api/api-keys/${id}`, undefined, admin)).status).toBe(204);
    const revokedAt = Date.now();
    let refused: Awaited<ReturnType<typeof call>>;
    do refused = await call(b.url, "GET", "/assistants/keyed", undefined, asKey);
    while (refused.status === 200 && Date.now() - revokedAt < REFUSED_WITHIN_MS);
    const refusedAfterMs = Date.now() - revokedAt;
    expect(refused.status, refused.text).toBe(401);
    expect(refused.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(refusedAfterMs).toBeLessThan(REFUSED_WITHIN_MS);
    await expect(new Client({ apiUrl: b.url, apiKey: key }).assistants.search()).rejects.toThrow(/401/);
    // A refuses it as well, and still lists it, revoked.
    expect((await fetch(`${a.url}/api/assistants`, { headers: { "x-api-key": key } })).status).toBe(401);
    expect((await expectOk<{ revoked_at: string | null }>(call(a.url, "GET", `/api/api-keys/${id}`, undefined, admin))).revoked_at).not.toBeNull();
  });
});
