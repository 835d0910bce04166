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
  /** The token's subject (`sub`), or `api-key:<id>` for an API key; absent without a credential. */
  subject?: string;
  scope: Scope;
  /** The only assistants the credential may use (an API key restricted to some); absent: every one. */
  assistantIds?: readonly string[];
}

/** Whether `principal` may see and run `assistantId`: every credential may, unless restricted to others. */
export const mayUseAssistant = (principal: Principal, assistantId: string): boolean =>
  principal.assistantIds === undefined || principal.assistantIds.includes(assistantId);

export const grants = (held: Scope, needed: Scope) => RANK[held] >= RANK[needed];

const isScope = (word: unknown): word is Scope => typeof word === "string" && Object.hasOwn(RANK, word);

/** A token's `scope` claim the gateway cannot honour; the message says why. */
export class ScopeClaimError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScopeClaimError";
  }
}

/**
 * The widest scope a token's `scope` claim grants: space-separated words (OAuth's form) or a list of
 * them, `undefined` when the claim is absent. Every word must be one of {@link SCOPES}, exactly (case
 * counts): a word the gateway does not know refuses the whole token rather than being ignored, so a
 * token minted for another system or with a typo never falls back to a default scope.
 */
export function widestScope(claim: unknown): Scope | undefined {
  if (claim === undefined) return undefined;
  const words = typeof claim === "string" ? claim.split(" ").filter(Boolean) : Array.isArray(claim) ? claim : undefined;
  if (words === undefined) throw new ScopeClaimError("The bearer token's scope claim must be a string of space-separated scopes or a list of them");
  const unknown = words.find((word) => !isScope(word));
  if (unknown !== undefined) {
    throw new ScopeClaimError(`The bearer token's scope ${JSON.stringify(unknown)} is not one the gateway knows; scopes are ${SCOPES.join(", ")} (case-sensitive)`);
  }
  if (words.length === 0) throw new ScopeClaimError(`The bearer token's scope claim names no scope; scopes are ${SCOPES.join(", ")}`);
  return SCOPES.filter((scope) => words.includes(scope)).at(-1);
}
