import { setLogger } from "@axiom-lattice/core";
import closeWithGrace from "close-with-grace";
import type { FastifyInstance } from "fastify";
import { type GatewayConfig, loadConfig } from "./config";
import { createGatewayRuntime } from "./runtime/gatewayRuntime";
import { buildGateway, createGatewayLogger } from "./server";

export interface RunningGateway {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, lets in-flight work settle and releases every resource. */
  close(): Promise<void>;
}

/** Starts a listening gateway and installs graceful SIGTERM/SIGINT handling. */
export async function start(config: GatewayConfig = loadConfig()): Promise<RunningGateway> {
  const logger = createGatewayLogger(config);
  setLogger(logger);
  const runtime = await createGatewayRuntime(config);
  const app = await buildGateway(config, { runtime, logger });
  // Server first (stop accepting, finish responses), then the runtime (hand runs back, close the pool).
  app.addHook("onClose", () => runtime.close());
  const grace = closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err, phase: "shutdown" }, "shutting down after a fatal error");
    else app.log.info({ signal, phase: "shutdown" }, "shutting down");
    await app.close();
  });
  app.addHook("onClose", async () => grace.uninstall());

  await runtime.recover();
  await app.listen({ port: config.port, host: config.host });
  await runtime.startBackground();
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  return { app, url, close: () => app.close() };
}
