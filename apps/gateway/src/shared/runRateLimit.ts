import { tenantOf } from "../auth/authentication";
import type { GatewayConfig } from "../config";

/**
 * The route option that holds each tenant to AXIOM_RUN_RATE_LIMIT_PER_MINUTE run creations on this
 * replica. `/api/runs` and the LangGraph API's run routes are held alike: neither is a way around it.
 */
export const runRateLimit = ({ runRateLimitPerMinute }: Pick<GatewayConfig, "runRateLimitPerMinute">) =>
  runRateLimitPerMinute > 0 ? { max: runRateLimitPerMinute, timeWindow: 60_000, keyGenerator: tenantOf } : false;
