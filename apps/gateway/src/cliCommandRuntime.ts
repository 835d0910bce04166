// What the CLI's commands run: the gateway, its stores and the database tools. The CLI loads this only
// once a command runs, so --help, --version and a refused command line answer without loading it.
export { RecoveryActor } from "@axiom-lattice/agent";
export { UnreadableSecretsError, createPostgreSQLStores, resealStoredSecrets } from "@axiom-lattice/pg-stores";
export { pino } from "pino";
export { issueToken } from "./auth/tokenIssuer";
export { loadConfig, tokenSigningConfig } from "./config";
export { start } from "./start";
export { describeStartupFailure } from "./startup/startupFailure";
export { createGatewayStores } from "./stores/gatewayStores";
export { createGatewayTasks } from "./tasks/gatewayTasks";
