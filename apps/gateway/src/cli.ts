#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config";
import { start } from "./start";

// Exit codes: 2 for a configuration the gateway refuses, 1 for a failure while starting.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`lattice-gateway: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const { url } = await start(config);
  process.stdout.write(`axiom-lattice gateway ready at ${url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`lattice-gateway: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
