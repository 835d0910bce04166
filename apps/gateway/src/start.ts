import closeWithGrace from "close-with-grace";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { type GatewayConfig, loadConfig } from "./config";
import { createGatewayContext } from "./context/gatewayContext";
import { exposeLoopbackUrl } from "./graphs/loopback";
import { abandonLog, buildGateway, createGatewayLogger, flushLog } from "./server";
import { waitForDatabase } from "./startup/databaseWait";
import { listeningUrl } from "./startup/listeningUrl";
import { describeStartupFailure } from "./startup/startupFailure";
import { type StartingServer, listenWhileStarting } from "./startup/startingServer";
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
  let starting: StartingServer | undefined;
  try {
    starting = await awaitDatabase(config, logger);
    const context = await createGatewayContext(config, logger);
    const app = await buildGateway(config, { context, logger });
    // Server first (stop accepting, finish responses), then the context (hand runs back, close the pool).
    app.addHook("onClose", () => context.close());
    // Exit follows either way: the log is flushed first, or dropped when its pipe is not read (pino's
    // own flush at exit would wait for that pipe forever).
    const onTimeout = (delayMs: number) => {
      app.log.error({ phase: "shutdown" }, `shutdown took longer than ${delayMs} ms (AXIOM_SHUTDOWN_TIMEOUT_MS); exiting`);
      abandonLog(app.log);
    };
    const grace = closeWithGrace({ delay: config.shutdownTimeoutMs, onTimeout }, async ({ signal, err }) => {
      if (err) app.log.error({ err, phase: "shutdown" }, "shutting down after a fatal error");
      else app.log.info({ signal, phase: "shutdown" }, "shutting down");
      await app.close();
      await flushLog(app.log);
    });
    app.addHook("onClose", async () => grace.uninstall());

    await context.recover();
    // The port changes hands here, for the moment between one server closing and the other listening.
    await starting?.close();
    await app.listen({ port: starting?.port ?? config.port, host: config.host });
    await context.startBackground();
    const url = listeningUrl(app, config.host);
    exposeLoopbackUrl(url);
    logStartupSummary(logger, context, url);
    return { app, url, close: () => app.close() };
  } catch (error) {
    await starting?.close();
    // The replica's last log line says why it stops, for whoever reads the log rather than stderr. Its
    // lines still buffered (a pipe that was full) are written now: after the CLI's one stderr line
    // and the exit, nothing of this replica may follow.
    logger.fatal({ phase: "startup", err: error }, `failed to start: ${describeStartupFailure(error, config)}`);
    await flushLog(logger);
    throw error;
  }
}

/**
 * Waits for the database (`AXIOM_DB_STARTUP_TIMEOUT_MS`). Should it not answer at once, the port is
 * served meanwhile (`/ready` 503): that server is returned, for the gateway to take its port over.
 */
async function awaitDatabase(config: GatewayConfig, logger: FastifyBaseLogger): Promise<StartingServer | undefined> {
  if (!config.databaseUrl) return undefined;
  let starting: StartingServer | undefined;
  try {
    await waitForDatabase(config.databaseUrl, config.database, logger, async (reason) => {
      if (starting) return void (starting.reason = reason);
      starting = await listenWhileStarting({ port: config.port, host: config.host, role: config.role, logger, reason });
      logger.info({ phase: "startup", url: starting.url }, `waiting for the database; answering at ${starting.url} with /ready 503 meanwhile`);
    });
    return starting;
  } catch (error) {
    await starting?.close();
    throw error;
  }
}
