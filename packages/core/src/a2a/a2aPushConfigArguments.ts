import type { A2aPushConfig } from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

const pushConfigSchema = z.object({
  tenantId: rules.text,
  taskId: rules.text,
  id: rules.text,
  url: rules.text,
  wireVersion: z.enum(["1.0", "0.3"], { error: "must be 1.0 or 0.3" }),
  token: rules.string.optional(),
  authentication: z.object({ scheme: rules.text, credentials: rules.string.optional() }, { error: "must be an object" }).optional(),
});

/** Checks what `A2aPushConfigStore.put` takes; throws `StoreArgumentError`, so nothing is written. */
export function validateA2aPushConfig(config: Omit<A2aPushConfig, "createdAt">): Omit<A2aPushConfig, "createdAt"> {
  const valid = definedFields(parseStoreArgument(pushConfigSchema, config, "A2A push config"));
  return valid.authentication ? { ...valid, authentication: definedFields(valid.authentication) } : valid;
}
