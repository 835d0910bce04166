import type { McpServerConfig } from "@axiom-lattice/protocols";
import { HttpError } from "../http/errors";
import { type UpstreamAllowList, checkUpstreamUrl } from "../http/upstreamUrl";

/**
 * Where a tenant's MCP servers may be. An `http` server is an address the gateway calls, held to the
 * same allow-list as a model's base URL; a `stdio` server is a command the gateway runs on its host,
 * held to the commands the operator lists.
 */
export interface McpTargetPolicy {
  /** The hosts an `http` server's url may name (`AXIOM_UPSTREAM_ALLOW`); any when unset. */
  upstreamAllow?: UpstreamAllowList;
  /** The commands a `stdio` server may run (`AXIOM_MCP_STDIO_ALLOW`), compared exactly; `any`: every one. */
  stdioAllow: "any" | readonly string[];
}

/** Refuses a server the policy does not allow: `BASE_URL_NOT_ALLOWED` or `MCP_COMMAND_NOT_ALLOWED`. */
export function checkMcpTarget(config: McpServerConfig, policy: McpTargetPolicy): void {
  if (config.transport === "http") {
    if (config.url !== undefined) checkUpstreamUrl(config.url, policy.upstreamAllow, "MCP server url");
    return;
  }
  if (policy.stdioAllow === "any" || (config.command !== undefined && policy.stdioAllow.includes(config.command))) return;
  throw new HttpError(
    "MCP_COMMAND_NOT_ALLOWED",
    `MCP stdio command "${config.command}" is not allowed: the gateway runs only the commands AXIOM_MCP_STDIO_ALLOW lists (with authentication on, none unless listed)`,
  );
}
