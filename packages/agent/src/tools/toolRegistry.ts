import type { ErrorCode } from "@axiom-lattice/protocols";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { clockTool, echoTool } from "./builtinTools";
import { memoryReadTool } from "./memoryRead";

/** An assistant names a tool no one registered. */
export class UnknownToolError extends Error {
  readonly code = "UNKNOWN_TOOL" satisfies ErrorCode;

  constructor(
    readonly toolName: string,
    registered: readonly string[],
  ) {
    super(`Unknown tool "${toolName}"; registered tools: ${registered.join(", ")}`);
    this.name = "UnknownToolError";
  }
}

/** The tools one tenant has besides the registered ones (such as its MCP servers' tools), by name. */
export type TenantToolSource = (tenantId: string) => ReadonlyMap<string, StructuredToolInterface>;

/** The names of the tools one tenant has switched off (its plugin catalog's kill switch). */
export type DisabledToolSource = (tenantId: string) => Promise<ReadonlySet<string>>;

/**
 * One agent runtime's tools: the built-ins and those registered on it. Each runtime has its own, so
 * two in one process never see each other's.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, StructuredToolInterface>([
    [clockTool.name, clockTool],
    [echoTool.name, echoTool],
    [memoryReadTool.name, memoryReadTool],
  ]);

  /** Makes a tool available to assistants under its `name` (replacing one of the same name). */
  register(tool: StructuredToolInterface): void {
    this.tools.set(tool.name, tool);
  }

  /** The runtime's tools (the built-ins and any registered), in registration order. */
  list(): StructuredToolInterface[] {
    return [...this.tools.values()];
  }

  /**
   * The tools an assistant lists, in its order, from this registry or else `tenantTools`; throws
   * `UnknownToolError` for a name in neither.
   */
  resolve(names: readonly string[], tenantTools: ReadonlyMap<string, StructuredToolInterface> = new Map()): StructuredToolInterface[] {
    return names.map((name) => {
      const found = this.tools.get(name) ?? tenantTools.get(name);
      if (!found) throw new UnknownToolError(name, [...this.tools.keys()]);
      return found;
    });
  }
}
