import { hostname } from "node:os";

let cached: string | undefined;

/**
 * This process's replica identity: `AXIOM_REPLICA_ID` when set (trimmed, non-empty), otherwise
 * `hostname:pid`. Read once, so it stays stable for the life of the process.
 */
export function getReplicaId(): string {
  cached ??= resolveReplicaId(process.env);
  return cached;
}

/** The identity the given environment selects (exported for tests and the CLI). */
export function resolveReplicaId(env: NodeJS.ProcessEnv): string {
  const configured = env.AXIOM_REPLICA_ID?.trim();
  return configured ? configured : `${hostname()}:${process.pid}`;
}
