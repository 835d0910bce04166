import { API_KEY_SCOPES, type CreateApiKeyRequest, MAX_API_KEY_ASSISTANTS } from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every ApiKeyStore, so bad input is refused alike and before any write.

/** A key as a store writes it: the request checked, its optional fields normalised. */
export type ValidApiKey = CreateApiKeyRequest;

/** A SHA-256 as the gateway writes it: lowercase hex. One form only, so one secret has one row. */
const secretHash = z.string({ error: "must be a SHA-256 in 64 lowercase hex digits" }).regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in 64 lowercase hex digits");

// An empty restriction would be a key that can use nothing: absent means every assistant.
const ASSISTANT_IDS = `must be a list of 1 to ${MAX_API_KEY_ASSISTANTS} assistant ids (absent: every assistant)`;
const assistantIds = z
  .array(rules.text, { error: ASSISTANT_IDS })
  .min(1, ASSISTANT_IDS)
  .max(MAX_API_KEY_ASSISTANTS, ASSISTANT_IDS)
  .transform((ids) => [...new Set(ids)]);

const createSchema = z.object(
  {
    id: rules.text,
    name: rules.text,
    scope: z.enum(API_KEY_SCOPES, { error: `must be one of ${API_KEY_SCOPES.join(", ")}` }),
    secretHash,
    prefix: rules.text,
    assistantIds: assistantIds.optional(),
    expiresAt: rules.date.optional(),
  },
  { error: "must be an object" },
);

export const requireApiKeyId = (keyId: unknown): string => parseStoreArgument(rules.text, keyId, "API key id");

export const requireSecretHash = (value: unknown): string => parseStoreArgument(secretHash, value, "API key secretHash");

export const requireTime = (value: unknown, what: string): Date => parseStoreArgument(rules.date, value, what);

export const validateCreateApiKey = (request: CreateApiKeyRequest): ValidApiKey => definedFields(parseStoreArgument(createSchema, request, "API key"));
