// The chat page at /playground: served from the playground package's build when it is there and the
// setting allows, public like the API reference, and never a reason for the gateway not to start.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { findPlaygroundPage } from "../src/playground/playgroundPage";

const AUTH = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: "a-test-secret-of-at-least-32-characters!" };

let built: string;
let unbuilt: string;
beforeAll(() => {
  built = mkdtempSync(join(tmpdir(), "playground-built-"));
  mkdirSync(join(built, "assets"));
  writeFileSync(join(built, "index.html"), '<!doctype html><script type="module" src="./assets/page-1a2b.js"></script>');
  writeFileSync(join(built, "assets", "page-1a2b.js"), "console.log('page')");
  unbuilt = mkdtempSync(join(tmpdir(), "playground-unbuilt-"));
});
afterAll(() => {
  rmSync(built, { recursive: true, force: true });
  rmSync(unbuilt, { recursive: true, force: true });
});

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function gateway(env: Record<string, string>, playgroundRoot: string) {
  const app = await buildGateway(loadConfig({ LOG_LEVEL: "silent", ...env }), { playgroundRoot });
  apps.push(app);
  return app;
}

describe("the playground page", () => {
  it("is served at /playground/ without a token, index.html fresh on every load and hashed assets for good", async () => {
    const app = await gateway(AUTH, built);
    const bare = await app.inject({ method: "GET", url: "/playground?thread=t1" });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe("/playground/?thread=t1");

    const page = await app.inject({ method: "GET", url: "/playground/?thread=t1" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.body).toContain("./assets/page-1a2b.js");

    const asset = await app.inject({ method: "GET", url: "/playground/assets/page-1a2b.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["content-type"]).toMatch(/javascript/);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");

    // Nothing else: a missing file and a path out of the folder are the usual 404.
    expect((await app.inject({ method: "GET", url: "/playground/assets/missing.js" })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: "/playground/../package.json" })).statusCode).toBe(404);
    // The API it calls still wants a token, which decides the tenant: the page learns so from the root, without one.
    expect((await app.inject({ method: "POST", url: "/assistants/search", payload: {} })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: "/" })).json()).toMatchObject({ playground: "/playground", authentication: "bearer" });
  });

  it("is not served with AXIOM_PLAYGROUND=off", async () => {
    const app = await gateway({ AXIOM_PLAYGROUND: "off" }, built);
    expect((await app.inject({ method: "GET", url: "/playground/" })).statusCode).toBe(404);
  });

  it("is not served when it is not built, and the gateway starts and serves the API all the same", async () => {
    const app = await gateway({}, unbuilt);
    expect((await app.inject({ method: "GET", url: "/playground/" })).statusCode).toBe(404);
    expect((await app.inject({ method: "POST", url: "/assistants/search", payload: {} })).statusCode).toBe(200);
  });

  it("is found in the playground package of the workspace", () => {
    expect(findPlaygroundPage()).toMatch(/apps\/playground\/dist$/);
  });
});
