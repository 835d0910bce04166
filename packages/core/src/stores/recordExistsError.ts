import type { ErrorCode } from "@axiom-lattice/protocols";

/** A record with this id already exists for the tenant; nothing was written. */
export class RecordExistsError extends Error {
  readonly code = "ALREADY_EXISTS" satisfies ErrorCode;

  constructor(
    readonly kind: "thread" | "assistant" | "schedule" | "project" | "task" | "room" | "model provider" | "mcp-config" | "web app" | "web app thread" | "API key",
    readonly tenantId: string,
    readonly id: string,
  ) {
    super(`A ${kind} with ${kind === "mcp-config" ? "key" : "id"} ${id} already exists`);
    this.name = "RecordExistsError";
  }
}
