import { execa } from "execa";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { langgraphCronConformance } from "../harness/langgraphCronCases";
import { langgraphConformance } from "../harness/langgraphConformance";
import { langgraphRunOptionsConformance } from "../harness/langgraphRunOptionsCases";
import { langgraphStoreConformance } from "../harness/langgraphStoreCases";
import { langgraphRunControlConformance } from "../harness/langgraphRunControlCases";
import { langgraphThreadConformance } from "../harness/langgraphThreadCases";
import { langgraphVersionConformance } from "../harness/langgraphVersionCases";
import { freshTenant } from "../harness/langgraphSdk";
import { Replica, printLogsOnFailure } from "../harness/replica";

// Issue 24: the official @langchain/langgraph-sdk client, unmodified, against the gateway's LangGraph
// API. The same conformance cases run on one gateway in memory (here) and on three replicas on
// PostgreSQL behind the documented nginx (24-langgraph-sdk-replicas.test.ts, which adds what only
// several replicas can show). Two files, so that the e2e suite can run them at the same time.

describe("scenario 24: the LangGraph SDK against one gateway, in memory", () => {
  let gateway: Replica;
  beforeAll(async () => {
    gateway = new Replica({ replicaId: "solo" });
    await gateway.waitReady();
  });
  afterAll(() => gateway?.stop("SIGKILL"));

  langgraphConformance(() => {
    printLogsOnFailure(() => [gateway]);
    return { url: gateway.url };
  });
  langgraphRunOptionsConformance(() => ({ url: gateway.url }));
  langgraphStoreConformance(() => ({ url: gateway.url }));
  langgraphRunControlConformance(() => ({ url: gateway.url }));
  langgraphCronConformance(() => ({ url: gateway.url }));
  langgraphThreadConformance(() => ({ url: gateway.url }));
  langgraphVersionConformance(() => ({ url: gateway.url }));

  it("the README's LangGraph SDK example runs as written", async () => {
    const readme = readFileSync(resolve(__dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## LangGraph SDK\n"));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBeDefined();
    // Resolved from this folder, where the SDK is installed; the one change: the gateway's port.
    const result = await execa("node", ["--input-type=module", "-e", example!.replace("http://127.0.0.1:4001", gateway.url)], {
      cwd: resolve(__dirname, ".."),
      env: { ...process.env, GATEWAY_TOKEN: await tokenFor(freshTenant("readme")) },
      reject: false,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('messages [{"content":"echo:"');
    expect(result.stdout.trim().split("\n").at(-1)).toContain("ask_human returned: yes");
  });
});
