import { type EgressPolicy, checkEgressUrl } from "@axiom-lattice/core";
import type { McpServerConfig } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";

/**
 * Where a tenant's MCP servers may be. An `http` server is an address the gateway calls, held to the
 * same egress policy as a model's base URL; a `stdio` server is a command the gateway runs on its
 * host, held to the commands the operator lists.
 */
export interface McpTargetPolicy {
  /** Where an `http` server's url may lead (`AXIOM_UPSTREAM_ALLOW`, internal addresses with authentication on). */
  egress: EgressPolicy;
  /** The commands a `stdio` server may run (`AXIOM_MCP_STDIO_ALLOW`), compared exactly; `any`: every one. */
  stdioAllow: "any" | readonly string[];
}

/** Refuses a server the policy does not allow: `BASE_URL_NOT_ALLOWED` or `MCP_COMMAND_NOT_ALLOWED`. */
export async function checkMcpTarget(config: McpServerConfig, policy: McpTargetPolicy): Promise<void> {
  if (config.transport === "http") {
    if (config.url !== undefined) await checkEgressUrl(config.url, policy.egress);
    return;
  }
  if (policy.stdioAllow === "any" || (config.command !== undefined && policy.stdioAllow.includes(config.command))) return;
  throw new HttpError(
    "MCP_COMMAND_NOT_ALLOWED",
    `MCP stdio command "${config.command}" is not allowed: the gateway runs only the commands AXIOM_MCP_STDIO_ALLOW lists (with authentication on, none unless listed)`,
  );
}
