import { type FencedTenure, writeUnderFence } from "@axiom-lattice/core";
import type { ItemStore, LeaseFence } from "@axiom-lattice/protocols";
import { BaseStore, type Item, type Operation, type OperationResults } from "@langchain/langgraph-checkpoint";

/**
 * LangGraph's `BaseStore` over one tenant's items: what a running graph's nodes and tools reach with
 * `getStore()` or `config.store`, the same items the LangGraph API's `/store` routes serve. A put from
 * a graph never expires (BaseStore's put has no time-to-live); reads refresh items that have one.
 * A run's store writes under its thread-run lease's `tenure`: a refused write ends the tenure.
 */
export class TenantStore extends BaseStore {
  constructor(
    private readonly items: ItemStore,
    private readonly tenantId: string,
    private readonly tenure?: FencedTenure,
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    // In order: a get after a put of the same batch reads what it wrote.
    for (const operation of operations) results.push(await this.apply(operation));
    return results as OperationResults<Op>;
  }

  private async apply(operation: Operation): Promise<Item | Item[] | string[][] | null | void> {
    const { items, tenantId } = this;
    if ("namespacePrefix" in operation) return items.search(tenantId, operation);
    if ("matchConditions" in operation || !("key" in operation)) {
      const at = (type: "prefix" | "suffix") => operation.matchConditions?.find((condition) => condition.matchType === type)?.path;
      return items.listNamespaces(tenantId, { prefix: at("prefix"), suffix: at("suffix"), maxDepth: operation.maxDepth, limit: operation.limit, offset: operation.offset });
    }
    if (!("value" in operation)) return items.get(tenantId, operation.namespace, operation.key);
    const { value } = operation;
    await this.write(async (fence) => {
      if (value === null) await items.delete(tenantId, operation.namespace, operation.key, { fence });
      else await items.put(tenantId, operation.namespace, operation.key, value, { fence });
    });
  }

  private write(write: (fence: LeaseFence | undefined) => Promise<void>): Promise<void> {
    return this.tenure ? writeUnderFence(this.tenure, write) : write(undefined);
  }
}
