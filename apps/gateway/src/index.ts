export { ConfigError, loadConfig, parseRetentionHours, type GatewayConfig } from "./config";
export { BODY_LIMIT_BYTES, buildGateway, type BuildGatewayOptions } from "./server";
export { HttpError } from "./http/errors";
export type { ReadinessCheck } from "./routes/health";
export { start, type RunningGateway } from "./start";
