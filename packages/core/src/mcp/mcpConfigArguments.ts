import type { CreateMcpServerConfigRequest, McpServerConfig, McpServerStatus, UpdateMcpServerConfigRequest } from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalText, requireInteger, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every McpServerConfigStore, so bad input is refused alike and before any write.
// Only known keys are kept, so a store never persists stray input (headers or env, say, which are
// secrets and wait for encryption at rest).

/** Letters, digits, `-` and `_`, never `__`: the key prefixes tool names as `<key>__<tool>`. */
const KEY_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,63}$/;
const STATUSES: readonly McpServerStatus[] = ["connected", "disconnected", "error"];
/** Ten minutes: a longer bound is no bound for a run waiting on a tool. */
export const MCP_TIMEOUT_LIMIT_MS = 600_000;
const RETRY_LIMIT = 10;

export interface ValidMcpServerConfig {
  key: string;
  config: McpServerConfig;
  selectedTools: string[];
  status: McpServerStatus;
}

export type ValidMcpServerConfigUpdate = Partial<Omit<ValidMcpServerConfig, "key">>;

export function requireMcpServerKey(key: unknown): string {
  const text = requireText(key, "MCP server key");
  if (!KEY_PATTERN.test(text)) {
    throw new StoreArgumentError("MCP server key must be 1 to 64 letters, digits, '-' or '_' (no '__'), starting with a letter or digit");
  }
  return text;
}

function validateUrl(value: unknown): string {
  const text = requireText(value, "MCP server url");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new StoreArgumentError(`MCP server url is not a URL: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new StoreArgumentError("MCP server url must be http or https");
  return text;
}

function validateConfig(value: unknown): McpServerConfig {
  const checked = requireObject(value, "MCP server config");
  const transport = checked.transport;
  const config: McpServerConfig = { transport: "stdio" };
  if (transport === "stdio") {
    if (checked.url !== undefined) throw new StoreArgumentError("An MCP stdio server takes a command, not a url");
    config.command = requireText(checked.command, "MCP server command");
    if (checked.args !== undefined) {
      if (!Array.isArray(checked.args)) throw new StoreArgumentError("MCP server args must be an array of strings");
      config.args = checked.args.map((arg) => requireText(arg, "MCP server argument"));
    }
  } else if (transport === "http") {
    if (checked.command !== undefined || checked.args !== undefined) throw new StoreArgumentError("An MCP http server takes a url, not a command");
    config.transport = "http";
    config.url = validateUrl(checked.url);
  } else {
    throw new StoreArgumentError(`MCP server transport must be "stdio" or "http", got ${String(transport)}`);
  }
  if (checked.timeout !== undefined) config.timeout = requireInteger(checked.timeout, "MCP server timeout (ms)", 1, MCP_TIMEOUT_LIMIT_MS);
  if (checked.retryAttempts !== undefined) config.retryAttempts = requireInteger(checked.retryAttempts, "MCP server retryAttempts", 0, RETRY_LIMIT);
  return config;
}

function validateSelectedTools(tools: unknown): string[] {
  if (!Array.isArray(tools)) throw new StoreArgumentError("MCP selectedTools must be an array of tool names");
  return [...new Set(tools.map((tool) => requireText(tool, "MCP tool name")))];
}

function validateStatus(status: unknown): McpServerStatus {
  if (!STATUSES.includes(status as McpServerStatus)) throw new StoreArgumentError(`MCP server status must be one of ${STATUSES.join(", ")}, got ${String(status)}`);
  return status as McpServerStatus;
}

export function validateCreateMcpServerConfig(request: CreateMcpServerConfigRequest): ValidMcpServerConfig {
  const checked = requireObject(request, "MCP server configuration");
  return {
    key: requireMcpServerKey(checked.key),
    config: validateConfig(checked.config),
    selectedTools: validateSelectedTools(checked.selectedTools ?? []),
    status: validateStatus(checked.status ?? "disconnected"),
  };
}

export function validateUpdateMcpServerConfig(request: UpdateMcpServerConfigRequest): ValidMcpServerConfigUpdate {
  const checked = requireObject(request, "MCP server configuration update");
  const update: ValidMcpServerConfigUpdate = {};
  if (checked.config !== undefined) update.config = validateConfig(checked.config);
  if (checked.selectedTools !== undefined) update.selectedTools = validateSelectedTools(checked.selectedTools);
  if (checked.status !== undefined) update.status = validateStatus(optionalText(checked.status, "MCP server status"));
  return update;
}
