import closeWithGrace from "close-with-grace";
import type { FastifyInstance } from "fastify";
import { type GatewayConfig, loadConfig } from "./config";
import { createGatewayContext } from "./context/gatewayContext";
import { buildGateway, createGatewayLogger } from "./server";
import { logStartupSummary } from "./startupSummary";

export interface RunningGateway {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, lets in-flight work settle and releases every resource. */
  close(): Promise<void>;
}

/** Starts a listening gateway and installs graceful SIGTERM/SIGINT handling. */
export async function start(config: GatewayConfig = loadConfig()): Promise<RunningGateway> {
  const logger = createGatewayLogger(config);
  if (config.secrets.development) {
    logger.warn(
      { phase: "startup", keyVersion: config.secrets.keyring.currentVersion },
      "LATTICE_ENCRYPTION_KEY is not set: stored secrets are sealed with the public development key; set it outside development",
    );
  }
  const context = await createGatewayContext(config, logger);
  const app = await buildGateway(config, { context, logger });
  // Server first (stop accepting, finish responses), then the context (hand runs back, close the pool).
  app.addHook("onClose", () => context.close());
  const grace = closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err, phase: "shutdown" }, "shutting down after a fatal error");
    else app.log.info({ signal, phase: "shutdown" }, "shutting down");
    await app.close();
  });
  app.addHook("onClose", async () => grace.uninstall());

  await context.recover();
  await app.listen({ port: config.port, host: config.host });
  await context.startBackground();
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logStartupSummary(logger, context, url);
  return { app, url, close: () => app.close() };
}
