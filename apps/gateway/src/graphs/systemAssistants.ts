import { REACT_GRAPH_ID } from "@axiom-lattice/agent";
import { RecordExistsError } from "@axiom-lattice/core";
import type { AssistantStore } from "@axiom-lattice/protocols";
import { v5 as uuidv5 } from "uuid";

/** LangGraph Platform's namespace for the ids of its default assistants: a graph's is `uuidv5(graphId, this)`. */
const GRAPH_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/** The id of a graph's default assistant, as LangGraph Platform makes it (the same on every replica and server). */
export const systemAssistantId = (graphId: string): string => uuidv5(graphId, GRAPH_NAMESPACE);

/** A graph's default `config` and `context` (`LANGGRAPH_CONFIG`, by graph id). */
export type GraphDefaults = Record<string, { config: Record<string, unknown>; context: Record<string, unknown> }>;

/**
 * One default assistant per graph in each tenant, as LangGraph Platform makes them: named as the
 * graph, `metadata.created_by: "system"`, its config from `LANGGRAPH_CONFIG`. They are written the
 * first time a tenant reaches the LangGraph API on this replica (tenants are not known in advance);
 * a replica racing another, or one the tenant deleted it from, leaves it as it is.
 */
export class SystemAssistants {
  private readonly ensured = new Map<string, Promise<void>>();

  constructor(
    private readonly assistants: Pick<AssistantStore, "createAssistant">,
    /** Every graph served: the ReAct agent's and the deployed ones. */
    private readonly graphIds: readonly string[],
    private readonly defaults: GraphDefaults,
  ) {}

  /** Makes sure the tenant has them (once per tenant and process; a failure is tried again next time). */
  ensure(tenantId: string): Promise<void> {
    let ensuring = this.ensured.get(tenantId);
    if (!ensuring) {
      ensuring = this.create(tenantId);
      this.ensured.set(tenantId, ensuring);
      ensuring.catch(() => this.ensured.delete(tenantId));
    }
    return ensuring;
  }

  /** Makes them again on the tenant's next `ensure` (its assistants were emptied). */
  forget(tenantId: string): void {
    this.ensured.delete(tenantId);
  }

  private async create(tenantId: string): Promise<void> {
    for (const graphId of this.graphIds) {
      const { config = {}, context = {} } = this.defaults[graphId] ?? {};
      try {
        await this.assistants.createAssistant(tenantId, {
          id: systemAssistantId(graphId),
          name: graphId,
          graph: graphId,
          model: { provider: "scripted" },
          metadata: { created_by: "system" },
          graphConfig: config,
          graphContext: graphId === REACT_GRAPH_ID ? {} : context,
        });
      } catch (error) {
        if (!(error instanceof RecordExistsError)) throw error;
      }
    }
  }
}
