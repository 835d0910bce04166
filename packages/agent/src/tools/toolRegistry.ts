import type { ErrorCode } from "@axiom-lattice/protocols";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { clockTool, echoTool } from "./builtinTools";
import { memoryReadTool } from "./memoryRead";

/** An assistant names a tool no one registered. */
export class UnknownToolError extends Error {
  readonly code = "UNKNOWN_TOOL" satisfies ErrorCode;

  constructor(readonly toolName: string) {
    super(`Unknown tool "${toolName}"; registered tools: ${[...tools.keys()].join(", ")}`);
    this.name = "UnknownToolError";
  }
}

const tools = new Map<string, StructuredToolInterface>([
  [clockTool.name, clockTool],
  [echoTool.name, echoTool],
  [memoryReadTool.name, memoryReadTool],
]);

/** Makes a tool available to assistants under its `name` (replacing one of the same name). */
export function registerTool(tool: StructuredToolInterface): void {
  tools.set(tool.name, tool);
}

/** The process-wide tools (the built-ins and any registered), in registration order. */
export function registeredTools(): StructuredToolInterface[] {
  return [...tools.values()];
}

/** The tools one tenant has besides the process-wide ones (such as its MCP servers' tools), by name. */
export type TenantToolSource = (tenantId: string) => ReadonlyMap<string, StructuredToolInterface>;

/** The names of the tools one tenant has switched off (its plugin catalog's kill switch). */
export type DisabledToolSource = (tenantId: string) => Promise<ReadonlySet<string>>;

/**
 * The tools an assistant lists, in its order, from the process-wide registry or else `tenantTools`;
 * throws `UnknownToolError` for a name in neither.
 */
export function resolveTools(names: readonly string[], tenantTools: ReadonlyMap<string, StructuredToolInterface> = new Map()): StructuredToolInterface[] {
  return names.map((name) => {
    const found = tools.get(name) ?? tenantTools.get(name);
    if (!found) throw new UnknownToolError(name);
    return found;
  });
}
