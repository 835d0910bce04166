import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { type GatewayContext, createGatewayContext } from "../src/context/gatewayContext";
import { createGatewayLogger } from "../src/server";

/** A gateway on in-memory stores for one describe block, with JSON request helpers. */
export function useGateway(setup: (gateway: TestGateway) => Promise<void> = async () => {}): TestGateway {
  const gateway = {} as TestGateway;
  beforeAll(async () => {
    // As `start()` does: the logger first, so the context logs through it too.
    const config = loadConfig({ LOG_LEVEL: "silent" });
    const logger = createGatewayLogger(config);
    gateway.context = await createGatewayContext(config, logger);
    gateway.app = await buildGateway(config, { context: gateway.context, logger });
    await setup(gateway);
  });
  afterAll(async () => {
    await gateway.app.close();
    await gateway.context.close();
  });
  gateway.post = (url, payload, headers = {}) =>
    gateway.app.inject({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  gateway.get = (url, headers = {}) => gateway.app.inject({ method: "GET", url, headers });
  gateway.del = (url, headers = {}) => gateway.app.inject({ method: "DELETE", url, headers });
  return gateway;
}

export interface TestGateway {
  app: FastifyInstance;
  /** The stores and agents the gateway serves, for looking behind the API. */
  context: GatewayContext;
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  del(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}
