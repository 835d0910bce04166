// The API key verifier on a real (in-memory) key store, its clock moved by the test: the principal a
// key stands for, its expiry to the millisecond, and at most one recorded use per minute, across
// replicas too.
import { InMemoryApiKeyStore, defaultLogger } from "@axiom-lattice/core";
import { describe, expect, it } from "vitest";
import { hashApiKeySecret, newApiKeySecret } from "../src/auth/apiKeySecrets";
import { createApiKeyVerifier } from "../src/auth/apiKeyVerifier";
import { API_KEY_USE_RECORD_INTERVAL_MS } from "../src/defaults";

const T0 = Date.parse("2026-12-07T03:00:00Z");

async function keyed(request: { assistantIds?: string[]; expiresAt?: Date } = {}) {
  const store = new InMemoryApiKeyStore();
  const secret = newApiKeySecret();
  await store.createApiKey("tenant-v", { id: "key-1", name: "n", scope: "write", secretHash: hashApiKeySecret(secret), prefix: secret.slice(0, 12), ...request });
  let now = T0;
  const replica = () => createApiKeyVerifier(store, { logger: defaultLogger(), now: () => now });
  const lastUse = async () => {
    // The use is written without being awaited: let it land.
    await new Promise((resolve) => setImmediate(resolve));
    return (await store.getApiKey("tenant-v", "key-1"))?.lastUsedAt?.getTime();
  };
  return { secret, replica, lastUse, at: (time: number) => void (now = time) };
}

describe("createApiKeyVerifier", () => {
  it("answers the key's tenant, scope, subject and assistants", async () => {
    const { secret, replica } = await keyed({ assistantIds: ["a"] });
    expect(await replica()(secret)).toEqual({ tenantId: "tenant-v", subject: "api-key:key-1", scope: "write", assistantIds: ["a"] });
  });

  it("records a use at most once a minute per key, and not when another replica just did", async () => {
    const { secret, replica, lastUse, at } = await keyed();
    const [a, b] = [replica(), replica()];
    await a(secret);
    expect(await lastUse()).toBe(T0);
    at(T0 + API_KEY_USE_RECORD_INTERVAL_MS - 1);
    await a(secret);
    await b(secret);
    expect(await lastUse()).toBe(T0);
    at(T0 + API_KEY_USE_RECORD_INTERVAL_MS);
    await b(secret);
    expect(await lastUse()).toBe(T0 + API_KEY_USE_RECORD_INTERVAL_MS);
    at(T0 + API_KEY_USE_RECORD_INTERVAL_MS + 1);
    await a(secret);
    expect(await lastUse()).toBe(T0 + API_KEY_USE_RECORD_INTERVAL_MS);
  });

  it("refuses a key from the millisecond it expires", async () => {
    const { secret, replica, at } = await keyed({ expiresAt: new Date(T0 + 1000) });
    const verify = replica();
    at(T0 + 999);
    await expect(verify(secret)).resolves.toMatchObject({ tenantId: "tenant-v" });
    at(T0 + 1000);
    await expect(verify(secret)).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: "The API key has expired" });
  });

  it("refuses a token not shaped as a key, and an unknown one", async () => {
    const { replica } = await keyed();
    await expect(replica()("lat_short")).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: expect.stringMatching(/^Invalid API key/) });
    await expect(replica()(newApiKeySecret())).rejects.toMatchObject({ code: "UNAUTHENTICATED", message: "Unknown API key" });
  });
});
