import { FakeModelListApi, type FakeModelListWire, closedPortBaseUrl } from "@axiom-lattice/testing";
import { afterAll, beforeAll } from "vitest";

/** The wire formats of model lists the gateway reads, each with the kind of provider that speaks it. */
export const MODEL_LIST_WIRES = ["openai", "ollama", "anthropic"] as const satisfies readonly FakeModelListWire[];

export interface FakeModelApis extends Record<FakeModelListWire, FakeModelListApi> {
  /** Where each fake's `redirect` points: a server the egress policy does not list, which must hear nothing. */
  refusedTarget: FakeModelListApi;
  /** A base URL on which nothing listens (listed by the policy, so the refusal is the network's). */
  closedBaseUrl(): string;
  /** The gateway's environment: an egress allow-list of the fakes and the closed port only, and a 2 s upstream timeout. */
  env(): Record<string, string>;
}

/** Local servers standing in for model APIs, one per wire format, for the tests of the file (or describe) that calls it. */
export function useFakeModelApis(): FakeModelApis {
  const apis = { openai: new FakeModelListApi("openai"), ollama: new FakeModelListApi("ollama"), anthropic: new FakeModelListApi("anthropic") };
  const refusedTarget = new FakeModelListApi();
  let closedBaseUrl = "";
  beforeAll(async () => {
    await Promise.all([...Object.values(apis), refusedTarget].map((api) => api.start()));
    for (const api of Object.values(apis)) api.redirectTo = `${refusedTarget.baseUrl("ok")}/models`;
    closedBaseUrl = await closedPortBaseUrl();
  });
  afterAll(() => Promise.all([...Object.values(apis), refusedTarget].map((api) => api.stop())));
  return {
    ...apis,
    refusedTarget,
    closedBaseUrl: () => closedBaseUrl,
    env: () => ({
      AXIOM_UPSTREAM_ALLOW: [...Object.values(apis).map(({ origin }) => origin), closedBaseUrl].map((url) => new URL(url).host).join(","),
      AXIOM_UPSTREAM_TIMEOUT_MS: "2000",
    }),
  };
}
