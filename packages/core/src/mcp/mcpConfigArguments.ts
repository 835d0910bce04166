import type { CreateMcpServerConfigRequest, McpServerConfig, McpServerStatus, UpdateMcpServerConfigRequest } from "@axiom-lattice/protocols";
import { SecretsRequiredError } from "../secrets/secretsRequiredError";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every McpServerConfigStore, so bad input is refused alike and before any write.
// Only known keys are kept, so a store never persists stray input.

/** Letters, digits, `-` and `_`, never `__`: the key prefixes tool names as `<key>__<tool>`. */
const KEY_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,63}$/;
const STATUSES = ["connected", "disconnected", "error"] as const satisfies readonly McpServerStatus[];
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

const KEY_RULE = "must be 1 to 64 letters, digits, '-' or '_' (no '__'), starting with a letter or digit";
const serverKey = z.string({ error: KEY_RULE }).regex(KEY_PATTERN, KEY_RULE);

export const requireMcpServerKey = (key: unknown): string => parseStoreArgument(serverKey, key, "MCP server key");

/** Header or environment entries: names by `namePattern`, non-empty values, both bounded. */
function secretEntries(kind: "headers" | "env", namePattern: RegExp, valuePattern?: RegExp) {
  // The value is a secret: a message names the entry, never its value.
  const VALUE = `must be a non-empty string of at most ${MCP_SECRET_VALUE_LIMIT} characters without control characters`;
  const value = z
    .string({ error: VALUE })
    .min(1, VALUE)
    .max(MCP_SECRET_VALUE_LIMIT, VALUE)
    .refine((text) => !text.includes("\0") && (!valuePattern || valuePattern.test(text)), VALUE);
  return z.record(z.string(), value, { error: "must be an object" }).superRefine((entries, context) => {
    const names = Object.keys(entries);
    if (names.length > MCP_SECRET_ENTRY_LIMIT) context.addIssue({ code: "custom", message: `hold at most ${MCP_SECRET_ENTRY_LIMIT} entries` });
    const seen = new Set<string>();
    for (const name of names) {
      // Header names are case-insensitive: two spellings of one name would silently collide.
      const folded = kind === "headers" ? name.toLowerCase() : name;
      const problem = !namePattern.test(name)
        ? "is not a valid name"
        : seen.has(folded)
          ? "appears twice"
          : kind === "headers" && isReservedMcpHeaderName(name)
            ? "is set by the MCP client itself"
            : null;
      if (problem) context.addIssue({ code: "custom", path: [name.slice(0, 128)], message: problem });
      seen.add(folded);
    }
  });
}

const common = {
  timeout: rules.integer(1, MCP_TIMEOUT_LIMIT_MS).optional(),
  retryAttempts: rules.integer(0, RETRY_LIMIT).optional(),
};
const config = z.discriminatedUnion(
  "transport",
  [
    z
      .looseObject({ transport: z.literal("stdio"), command: rules.text, args: z.array(rules.text, { error: "must be an array of strings" }).optional(), env: secretEntries("env", MCP_ENV_NAME_PATTERN).optional(), ...common })
      .refine((value) => value.url === undefined && value.headers === undefined, "takes a command (and env), not a url or headers, with transport stdio"),
    z
      .looseObject({ transport: z.literal("http"), url: rules.httpUrl, headers: secretEntries("headers", MCP_HEADER_NAME_PATTERN, MCP_HEADER_VALUE_PATTERN).optional(), ...common })
      .refine((value) => value.command === undefined && value.args === undefined && value.env === undefined, "takes a url (and headers), not a command or env, with transport http"),
  ],
  { error: 'must have a transport "stdio" or "http"' },
);

// Unknown keys are kept until the transport's refinement has seen them (a url on a stdio server is
// refused, not dropped); `definedFields` over the known ones is what is stored.
const storedConfig = (value: z.output<typeof config>): McpServerConfig => {
  const known = value.transport === "stdio" ? { transport: value.transport, command: value.command, args: value.args, env: value.env } : { transport: value.transport, url: value.url, headers: value.headers };
  return definedFields({ ...known, timeout: value.timeout, retryAttempts: value.retryAttempts });
};

const selectedTools = z.array(rules.text, { error: "must be an array of tool names" }).transform((tools) => [...new Set(tools)]);
const status = z.enum(STATUSES, { error: `must be one of ${STATUSES.join(", ")}` });

const createSchema = z.object(
  { key: serverKey, config: config.transform(storedConfig), selectedTools: selectedTools.default([]), status: status.default("disconnected") },
  { error: "must be an object" },
);
const updateSchema = z.object({ config: config.transform(storedConfig), selectedTools, status }, { error: "must be an object" }).partial();

export const validateCreateMcpServerConfig = (request: CreateMcpServerConfigRequest): ValidMcpServerConfig => parseStoreArgument(createSchema, request, "MCP server");

export const validateUpdateMcpServerConfig = (request: UpdateMcpServerConfigRequest): ValidMcpServerConfigUpdate =>
  definedFields(parseStoreArgument(updateSchema, request, "MCP server"));

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
