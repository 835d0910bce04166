export type McpTransport = "stdio" | "http";

export interface McpServerConfig {
  transport: McpTransport;
  command?: string;
  args?: string[];
  url?: string;
  timeout?: number;
  retryAttempts?: number;
}

export type McpServerStatus = "connected" | "disconnected" | "error";

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

export interface McpServerConfigStore {
  getAll(tenantId: string): Promise<McpServerConfigEntry[]>;
  get(tenantId: string, key: string): Promise<McpServerConfigEntry | null>;
  create(tenantId: string, request: CreateMcpServerConfigRequest): Promise<McpServerConfigEntry>;
  update(tenantId: string, key: string, request: UpdateMcpServerConfigRequest): Promise<McpServerConfigEntry | null>;
  delete(tenantId: string, key: string): Promise<boolean>;
}
