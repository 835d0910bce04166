/**
 * What a request may do: `read` (GET), `write` (create, change, run, delete) and `admin` (recovery,
 * and what is shared across a tenant: MCP servers, model providers). Each includes the ones before it.
 */
export type Scope = "read" | "write" | "admin";

const RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };
export const SCOPES = Object.keys(RANK) as Scope[];

/** Who is calling: the tenant every query of the request is confined to, and what it may do. */
export interface Principal {
  tenantId: string;
  /** The token's subject (`sub`); absent without authentication. */
  subject?: string;
  scope: Scope;
}

export const grants = (held: Scope, needed: Scope) => RANK[held] >= RANK[needed];

/** The widest scope among a token's `scope` claim (space-separated, or a list); `undefined` when none is known. */
export function widestScope(claim: unknown): Scope | undefined {
  const listed = typeof claim === "string" ? claim.split(" ") : Array.isArray(claim) ? claim : [];
  return SCOPES.filter((scope) => listed.includes(scope)).at(-1);
}
