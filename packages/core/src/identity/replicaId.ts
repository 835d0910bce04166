import { hostname } from "node:os";

/**
 * The identity components fall back to when their caller names none: `hostname:pid`, unique among
 * live processes. The gateway reads `AXIOM_REPLICA_ID` in its configuration and hands its id to every
 * component explicitly.
 */
export function getReplicaId(): string {
  return `${hostname()}:${process.pid}`;
}
