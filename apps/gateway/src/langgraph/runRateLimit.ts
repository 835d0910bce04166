import { tenantOf } from "../auth/authentication";
import type { GatewayConfig } from "../config";

/**
 * The route option that holds each tenant to AXIOM_RUN_RATE_LIMIT_PER_MINUTE run creations on this
 * replica, as `/api/runs` is held: the LangGraph API's run routes are no way around it.
 */
export const runRateLimit = ({ runRateLimitPerMinute }: Pick<GatewayConfig, "runRateLimitPerMinute">) =>
  runRateLimitPerMinute > 0 ? { max: runRateLimitPerMinute, timeWindow: 60_000, keyGenerator: tenantOf } : false;
