import { randomBytes } from "node:crypto";
import { FakeOpenAi } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectOk } from "../harness/client";
import { useCluster } from "../harness/cluster";

// Issue 40: model discovery on two replicas on PostgreSQL. A provider is tested and its models
// discovered on A; B's catalogue shows them at once (read from the store, no cache to warm), and a
// run on B uses a discovered model the operator never typed. Switched off on A, the model is refused
// by B's next write and fails B's next run at once.

interface RunResult {
  status: string;
  messages: Array<{ content: unknown }>;
}

describe("scenario 34: model providers discovered on one replica, used on another", () => {
  const cluster = useCluster();
  const api = new FakeOpenAi();
  let apiUrl = "";
  beforeAll(async () => {
    apiUrl = await api.start();
  });
  afterAll(() => api.stop());

  it("a provider tested and discovered on A: B lists its models at once and runs one; switched off on A, B refuses it at once", async () => {
    // Replicas of one deployment share the sealing key; the fake API listens on loopback, which the
    // replicas (authentication on) refuse unless listed.
    const env = { LATTICE_ENCRYPTION_KEY: `v1:${randomBytes(32).toString("base64")}`, AXIOM_UPSTREAM_ALLOW: "127.0.0.1" };
    const [a, b] = await cluster.start(2, { prefix: "providers", env });
    api.models = ["discovered-large", "discovered-small"];

    await expectOk(call(a.url, "POST", "/api/model-providers", { id: "team-llm", kind: "openai", base_url: apiUrl, api_key: "sk-e2e-discovery" }), 201);
    expect(await expectOk(call(a.url, "POST", "/api/model-providers/team-llm/test"))).toMatchObject({ reachable: true, models_count: 2 });
    expect(await expectOk(call(a.url, "POST", "/api/model-providers/team-llm/discover"))).toEqual({
      models_count: 2,
      added: 2,
      vanished: 0,
      listed_count: 2,
      truncated: false,
    });

    const onB = await expectOk<{ models: Array<{ model: string; enabled: boolean; available: boolean }> }>(call(b.url, "GET", "/api/model-providers/team-llm/models"));
    expect(onB.models.map(({ model, enabled, available }) => ({ model, enabled, available }))).toEqual([
      { model: "discovered-large", enabled: true, available: true },
      { model: "discovered-small", enabled: true, available: true },
    ]);

    await expectOk(call(b.url, "POST", "/api/assistants", { id: "discovered", name: "Discovered", model: { provider: "team-llm", model: "discovered-small" } }), 201);
    await expectOk(call(b.url, "POST", "/api/threads", { thread_id: "discovery-thread", assistant_id: "discovered" }), 201);
    const run = await expectOk<RunResult>(call(b.url, "POST", "/api/runs", { assistant_id: "discovered", thread_id: "discovery-thread", message: "hi", mode: "wait" }));
    expect(run).toMatchObject({ status: "success" });
    expect(run.messages.at(-1)?.content).toBe("Hello from the fake API: hi");
    expect(api.requests.map((request) => [request.body.model, request.authorization])).toEqual([["discovered-small", "Bearer sk-e2e-discovery"]]);

    await expectOk(call(a.url, "PATCH", "/api/model-providers/team-llm/models/discovered-small", { enabled: false }));
    const refused = await call(b.url, "POST", "/api/assistants", { id: "refused", name: "Refused", model: { provider: "team-llm", model: "discovered-small" } });
    expect([refused.status, refused.json<{ code: string }>().code]).toEqual([400, "MODEL_DISABLED"]);
    const failed = await expectOk<RunResult & { error?: string }>(
      call(b.url, "POST", "/api/runs", { assistant_id: "discovered", thread_id: "discovery-thread", message: "again", mode: "wait" }),
    );
    expect(failed).toMatchObject({ status: "error", error: expect.stringMatching(/^MODEL_DISABLED: /) });
    expect(api.requests).toHaveLength(1);
  });
});
