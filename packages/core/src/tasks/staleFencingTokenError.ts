import type { ErrorCode } from "@axiom-lattice/protocols";

/**
 * A task write carried an older fencing token than the task has seen: its writer's lease was taken
 * over since, so the successor's writes stand; nothing was written. A distinct error, not a `null`,
 * so a caller cannot mistake it for a compare-and-set miss.
 */
export class StaleFencingTokenError extends Error {
  readonly code = "LEASE_LOST" satisfies ErrorCode;

  constructor(
    readonly tenantId: string,
    readonly taskId: string,
    readonly token: string,
    readonly seenToken: string,
  ) {
    super(`Task ${taskId} has seen fencing token ${seenToken}; a write under the older token ${token} is refused`);
    this.name = "StaleFencingTokenError";
  }
}
