// A gateway replica as users start it: `node apps/gateway/dist/cli.js`, configured by environment.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { ServerProcess } from "./serverProcess";

const CLI = resolve(__dirname, "../../apps/gateway/dist/cli.js");

export interface GatewayProcessOptions {
  name: string;
  /** PostgreSQL stores when given; in-memory stores otherwise. */
  databaseUrl?: string;
  /** AXIOM_REPLICA_ID: a stable replica name, as deployments of several replicas set it. */
  replicaId?: string;
  /** Node flags before the CLI (instrumentation only, e.g. B7's GC hook). */
  nodeFlags?: string[];
  /** More settings, e.g. authentication (B9). */
  env?: Record<string, string>;
  /** Another build's CLI, to compare builds (default: this checkout's). */
  cli?: string;
}

/** Starts one replica on a free port and resolves once `/ready` answers 200. Build the gateway first. */
export function startGateway({ name, databaseUrl, replicaId, nodeFlags = [], env = {}, cli = CLI }: GatewayProcessOptions): Promise<ServerProcess> {
  return ServerProcess.start({
    name,
    nodeArgs: [...nodeFlags, cli],
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      // Request logging at info would measure pino as much as the gateway.
      LOG_LEVEL: "warn",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(replicaId ? { AXIOM_REPLICA_ID: replicaId } : {}),
      ...env,
    },
    readyPath: "/ready",
  });
}

/** A bearer token for `tenantId`, from the CLI's `token:issue` as operators make them, signed with `secret`. */
export function issueToken(secret: string, tenantId: string): string {
  const args = [CLI, "token:issue", "--tenant", tenantId, "--sub", "bench", "--scope", "admin"];
  return execFileSync(process.execPath, args, { env: { AUTH_TOKEN_SECRET: secret, LOG_LEVEL: "warn" }, encoding: "utf8" }).trim();
}
