// No secret at rest: after model providers are created and re-keyed through the API, no column of
// any table in the database (text, json, arrays, bytes) contains a key.
import { columnsContaining } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { useGateway, useStoreEnv } from "./support";

const KEYS = ["sk-scan-first-0123456789", "sk-scan-second-0123456789", "sk-scan-other-tenant-0123456789"];

describe("no secret in the database", () => {
  const storeEnv = useStoreEnv("postgresql");
  const gateway = useGateway(async () => {}, storeEnv);
  const patch = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });

  it("finds no model provider key in any column of any table", async () => {
    const { post } = gateway;
    expect((await post("/api/model-providers", { id: "scan", kind: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: KEYS[0] })).statusCode).toBe(201);
    expect((await patch("/api/model-providers/scan", { apiKey: KEYS[1] })).statusCode).toBe(200);
    const other = { "x-tenant-id": "tenant-scan" };
    expect((await post("/api/model-providers", { id: "scan", kind: "openai", apiKey: KEYS[2] }, other)).statusCode).toBe(201);
    expect((await post("/api/assistants", { id: "scanned", name: "Scanned", model: { provider: "scan" } })).statusCode).toBe(201);
    for (const key of KEYS) expect(await columnsContaining(storeEnv().DATABASE_URL, key), key).toEqual([]);
    // The scan does look where keys would be: the provider's row holds the sealed form, found as such.
    expect(await columnsContaining(storeEnv().DATABASE_URL, "enc:dev:")).toEqual(["lattice_model_providers.api_key_sealed"]);
  });
});
