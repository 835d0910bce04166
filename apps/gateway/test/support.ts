import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildGateway, loadConfig } from "../src";

/** A gateway on in-memory stores for one describe block, with JSON request helpers. */
export function useGateway(setup: (gateway: TestGateway) => Promise<void> = async () => {}): TestGateway {
  const gateway = {} as TestGateway;
  beforeAll(async () => {
    gateway.app = await buildGateway(loadConfig({ LOG_LEVEL: "silent" }));
    await setup(gateway);
  });
  afterAll(() => gateway.app.close());
  gateway.post = (url, payload, headers = {}) =>
    gateway.app.inject({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  gateway.get = (url, headers = {}) => gateway.app.inject({ method: "GET", url, headers });
  gateway.del = (url, headers = {}) => gateway.app.inject({ method: "DELETE", url, headers });
  return gateway;
}

export interface TestGateway {
  app: FastifyInstance;
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  del(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}
