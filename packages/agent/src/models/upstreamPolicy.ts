import type { EgressPolicy } from "@axiom-lattice/core";

/**
 * How a model's API calls are bounded: the time one request may take, the retries after a failure,
 * and where a base URL may send them.
 */
export interface UpstreamPolicy {
  timeoutMs: number;
  maxRetries: number;
  egress: EgressPolicy;
}
