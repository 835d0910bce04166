import type { Page, PageRequest } from "../page";

/** How the gateway reaches an MCP server: a child process over stdio, or Streamable HTTP. */
export type McpTransport = "stdio" | "http";

/**
 * Where an MCP server is and how long to wait for it. `command`/`args` for `stdio`, `url` (http or
 * https) for `http`. `timeout` bounds every call to the server, in milliseconds. `headers` (http
 * only) go with every request to the server, `env` (stdio only) joins the child's environment; both
 * are secrets: stored sealed, never returned by the API.
 */
export interface McpServerConfig {
  transport: McpTransport;
  command?: string;
  args?: string[];
  url?: string;
  timeout?: number;
  retryAttempts?: number;
  headers?: Record<string, string>;
  env?: Record<string, string>;
}

export type McpServerStatus = "connected" | "disconnected" | "error";

/**
 * One tenant's MCP server. `key` names it within the tenant and prefixes its tools
 * (`<key>__<tool>`), so it holds letters, digits, `-` and single `_` only. `selectedTools` are the
 * server's tools the tenant's assistants may use; `status` is what every replica reconciles to.
 */
export interface McpServerConfigEntry {
  tenantId: string;
  key: string;
  config: McpServerConfig;
  selectedTools: string[];
  status: McpServerStatus;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateMcpServerConfigRequest {
  key: string;
  config: McpServerConfig;
  selectedTools?: string[];
  status?: McpServerStatus;
}

export type UpdateMcpServerConfigRequest = Partial<Omit<CreateMcpServerConfigRequest, "key">>;

/** Per-tenant MCP server configurations. `create` throws `ALREADY_EXISTS` for a key in use. */
export interface McpServerConfigStore {
  /** The tenant's configurations, oldest first (ties: by key). */
  list(tenantId: string, page: PageRequest): Promise<Page<McpServerConfigEntry>>;
  get(tenantId: string, key: string): Promise<McpServerConfigEntry | null>;
  create(tenantId: string, request: CreateMcpServerConfigRequest): Promise<McpServerConfigEntry>;
  update(tenantId: string, key: string, request: UpdateMcpServerConfigRequest): Promise<McpServerConfigEntry | null>;
  delete(tenantId: string, key: string): Promise<boolean>;
  /** Every tenant's configurations whose status is `connected`: what a starting replica restores. */
  listConnected(): Promise<McpServerConfigEntry[]>;
}
