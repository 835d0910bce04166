import { randomUUID } from "node:crypto";
import { getReplicaId } from "../identity/replicaId";

/** A holder string unique to one invocation: `<label>#<random id>`. */
export function uniqueHolder(label: string = getReplicaId()): string {
  return `${label}#${randomUUID()}`;
}

/** The label part of a holder built by {@link uniqueHolder} (the replica id, for replica holders). */
export function holderLabel(holder: string): string {
  const hash = holder.lastIndexOf("#");
  return hash === -1 ? holder : holder.slice(0, hash);
}
