import { execa } from "execa";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, loadConfig } from "../src";

// The reference as a client author uses it: openapi-typescript generates the types from the served
// /openapi.json, a small program calls three routes through openapi-fetch with them, tsc checks it
// (strict: a wrong field, a missing one or an unnamed operation would not compile), and node runs it.
const TSC = resolve(__dirname, "../../../node_modules/.bin/tsc");

const CLIENT = `import createClient from "openapi-fetch";
import type { paths, components } from "./api.js";

const client = createClient<paths>({ baseUrl: process.argv[2] });
const created = await client.POST("/api/assistants", { body: { id: "generated", name: "Generated" } });
const thread = await client.POST("/api/threads", { body: { thread_id: "generated-thread", assistant_id: "generated" } });
const listed = await client.GET("/api/threads", { params: { query: { assistant_id: "generated" }, header: { "x-tenant-id": "default" } } });
const threads: components["schemas"]["Thread"][] = listed.data?.threads ?? [];
console.log(JSON.stringify({
  statuses: [created.response.status, thread.response.status, listed.response.status],
  assistant: created.data?.name,
  threads: threads.map((each) => each.id),
}));
`;

describe("a client generated from the OpenAPI document", () => {
  let app: Awaited<ReturnType<typeof buildGateway>>;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // Inside the package, so the program resolves openapi-fetch from its node_modules.
    await mkdir(resolve(__dirname, "../test-results"), { recursive: true });
    dir = await mkdtemp(resolve(__dirname, "../test-results/openapi-client-"));
  });
  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("type-checks and calls three routes", { timeout: 120_000 }, async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    await writeFile(join(dir, "api.ts"), astToString(await openapiTS(document)));
    await writeFile(join(dir, "client.mts"), CLIENT);
    const compiled = await execa(TSC, ["--strict", "--module", "nodenext", "--target", "es2022", "--skipLibCheck", "--outDir", join(dir, "out"), join(dir, "client.mts")], { reject: false });
    expect(compiled.exitCode, compiled.stdout).toBe(0);
    const { stdout } = await execa(process.execPath, [join(dir, "out", "client.mjs"), url]);
    expect(JSON.parse(stdout)).toEqual({ statuses: [201, 201, 200], assistant: "Generated", threads: ["generated-thread"] });
  });
});
