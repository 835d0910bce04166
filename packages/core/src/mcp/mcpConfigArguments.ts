import type { CreateMcpServerConfigRequest, McpServerConfig, McpServerStatus, UpdateMcpServerConfigRequest } from "@axiom-lattice/protocols";
import { SecretsRequiredError } from "../secrets/secretsRequiredError";
import { StoreArgumentError, optionalText, requireInteger, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every McpServerConfigStore, so bad input is refused alike and before any write.
// Only known keys are kept, so a store never persists stray input.

/** Letters, digits, `-` and `_`, never `__`: the key prefixes tool names as `<key>__<tool>`. */
const KEY_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,63}$/;
const STATUSES: readonly McpServerStatus[] = ["connected", "disconnected", "error"];
/** Ten minutes: a longer bound is no bound for a run waiting on a tool. */
export const MCP_TIMEOUT_LIMIT_MS = 600_000;
const RETRY_LIMIT = 10;
/** An HTTP header name: a token (RFC 9110), so `fetch` accepts it. */
export const MCP_HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** A portable environment variable name. */
export const MCP_ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
// Headers the MCP client sets itself (protocol, session, framing): a stored one would break the
// connection, or hijack the session.
const MCP_RESERVED_HEADER_NAMES = new Set(["accept", "connection", "content-length", "content-type", "host", "last-event-id", "mcp-protocol-version", "mcp-session-id", "transfer-encoding"]);

/** Whether `name` is a header the MCP client sets itself, which a configuration may not set. */
export const isReservedMcpHeaderName = (name: string): boolean => MCP_RESERVED_HEADER_NAMES.has(name.toLowerCase());

/** A header value holds no control character (CR/LF would split the request). */
export const MCP_HEADER_VALUE_PATTERN = /^\P{Cc}+$/u;
/** Headers or variables per server: enough for credentials, small enough to seal each on every write. */
export const MCP_SECRET_ENTRY_LIMIT = 32;
export const MCP_SECRET_VALUE_LIMIT = 8192;

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

/** Header or environment entries: names by `namePattern`, non-empty values, both bounded. */
function validateSecretEntries(value: unknown, what: string, namePattern: RegExp, valuePattern?: RegExp): Record<string, string> {
  const entries = Object.entries(requireObject(value, `MCP server ${what}`));
  if (entries.length > MCP_SECRET_ENTRY_LIMIT) throw new StoreArgumentError(`MCP server ${what} hold at most ${MCP_SECRET_ENTRY_LIMIT} entries`);
  const names = new Set<string>();
  for (const [name, text] of entries) {
    if (!namePattern.test(name)) throw new StoreArgumentError(`MCP server ${what} name ${JSON.stringify(name.slice(0, 128))} is not valid`);
    // Header names are case-insensitive: two spellings of one name would silently collide.
    const folded = what === "headers" ? name.toLowerCase() : name;
    if (names.has(folded)) throw new StoreArgumentError(`MCP server ${what} name ${name} appears twice`);
    if (what === "headers" && isReservedMcpHeaderName(name)) throw new StoreArgumentError(`MCP server header ${name} is set by the MCP client itself`);
    names.add(folded);
    // The value is a secret: the message names the entry, never its value.
    if (typeof text !== "string" || text.length === 0 || text.length > MCP_SECRET_VALUE_LIMIT || text.includes("\0") || (valuePattern && !valuePattern.test(text))) {
      throw new StoreArgumentError(`MCP server ${what} ${name} must be a non-empty string of at most ${MCP_SECRET_VALUE_LIMIT} characters without control characters`);
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function validateConfig(value: unknown): McpServerConfig {
  const checked = requireObject(value, "MCP server config");
  const transport = checked.transport;
  const config: McpServerConfig = { transport: "stdio" };
  if (transport === "stdio") {
    if (checked.url !== undefined || checked.headers !== undefined) throw new StoreArgumentError("An MCP stdio server takes a command (and env), not a url or headers");
    config.command = requireText(checked.command, "MCP server command");
    if (checked.args !== undefined) {
      if (!Array.isArray(checked.args)) throw new StoreArgumentError("MCP server args must be an array of strings");
      config.args = checked.args.map((arg) => requireText(arg, "MCP server argument"));
    }
    if (checked.env !== undefined) config.env = validateSecretEntries(checked.env, "env", MCP_ENV_NAME_PATTERN);
  } else if (transport === "http") {
    if (checked.command !== undefined || checked.args !== undefined || checked.env !== undefined) {
      throw new StoreArgumentError("An MCP http server takes a url (and headers), not a command or env");
    }
    config.transport = "http";
    config.url = validateUrl(checked.url);
    if (checked.headers !== undefined) config.headers = validateSecretEntries(checked.headers, "headers", MCP_HEADER_NAME_PATTERN, MCP_HEADER_VALUE_PATTERN);
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

/**
 * The configuration an update stores: `next`, keeping the stored headers or env when `next` omits
 * them, so a client that never saw the secrets does not drop them. They are kept only for the same
 * destination (the same url; the same command and args): for a new one the update must give them
 * again ({@link SecretsRequiredError}). A change of transport drops them.
 */
export function keepStoredMcpSecrets(next: McpServerConfig, stored: McpServerConfig): McpServerConfig {
  const kept: McpServerConfig = { ...next };
  if (next.transport === "http" && next.headers === undefined && stored.headers !== undefined) {
    if (next.url !== stored.url) throw new SecretsRequiredError("The MCP server's url changes: send its headers again ({} drops them); stored headers never follow a new url");
    kept.headers = stored.headers;
  }
  if (next.transport === "stdio" && next.env === undefined && stored.env !== undefined) {
    if (next.command !== stored.command || JSON.stringify(next.args ?? []) !== JSON.stringify(stored.args ?? [])) {
      throw new SecretsRequiredError("The MCP server's command or args change: send its env again ({} drops it); stored env never follows a new command");
    }
    kept.env = stored.env;
  }
  return kept;
}
