import { API_KEY_SCOPES, type ApiKeyScope, type CreateApiKeyRequest, MAX_API_KEY_ASSISTANTS } from "@axiom-lattice/protocols";
import { StoreArgumentError, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every ApiKeyStore, so bad input is refused alike and before any write.

/** A SHA-256 as the gateway writes it: lowercase hex. One form only, so one secret has one row. */
const SECRET_HASH = /^[0-9a-f]{64}$/;

/** A key as a store writes it: the request checked, its optional fields normalised. */
export type ValidApiKey = CreateApiKeyRequest;

export const requireApiKeyId = (keyId: unknown): string => requireText(keyId, "API key id");

export function requireSecretHash(value: unknown): string {
  if (typeof value !== "string" || !SECRET_HASH.test(value)) throw new StoreArgumentError("API key secretHash must be a SHA-256 in 64 lowercase hex digits");
  return value;
}

export function requireTime(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreArgumentError(`${what} must be a valid Date`);
  return value;
}

function validateAssistantIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_API_KEY_ASSISTANTS) {
    // An empty restriction would be a key that can use nothing: absent means every assistant.
    throw new StoreArgumentError(`API key assistantIds must be a list of 1 to ${MAX_API_KEY_ASSISTANTS} assistant ids (absent: every assistant)`);
  }
  return [...new Set(value.map((id) => requireText(id, "API key assistant id")))];
}

export function validateCreateApiKey(request: CreateApiKeyRequest): ValidApiKey {
  const checked = requireObject(request, "API key");
  if (!API_KEY_SCOPES.includes(checked.scope as ApiKeyScope)) throw new StoreArgumentError(`API key scope must be one of ${API_KEY_SCOPES.join(", ")}`);
  const valid: ValidApiKey = {
    id: requireApiKeyId(checked.id),
    name: requireText(checked.name, "API key name"),
    scope: checked.scope as ApiKeyScope,
    secretHash: requireSecretHash(checked.secretHash),
    prefix: requireText(checked.prefix, "API key prefix"),
  };
  if (checked.assistantIds !== undefined) valid.assistantIds = validateAssistantIds(checked.assistantIds);
  if (checked.expiresAt !== undefined) valid.expiresAt = requireTime(checked.expiresAt, "API key expiresAt");
  return valid;
}
