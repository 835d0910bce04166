import type { A2aPushConfig } from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalString, requireTenantId, requireText } from "../stores/storeArguments";

/** Checks what `A2aPushConfigStore.put` takes; throws `StoreArgumentError`, so nothing is written. */
export function validateA2aPushConfig(config: Omit<A2aPushConfig, "createdAt">): Omit<A2aPushConfig, "createdAt"> {
  const { tenantId, taskId, id, url, token, authentication, wireVersion } = config;
  if (wireVersion !== "1.0" && wireVersion !== "0.3") throw new StoreArgumentError(`wireVersion must be 1.0 or 0.3, got ${String(wireVersion)}`);
  const valid: Omit<A2aPushConfig, "createdAt"> = {
    tenantId: requireTenantId(tenantId),
    taskId: requireText(taskId, "taskId"),
    id: requireText(id, "push config id"),
    url: requireText(url, "url"),
    wireVersion,
  };
  const checkedToken = optionalString(token, "token");
  if (checkedToken !== undefined) valid.token = checkedToken;
  if (authentication !== undefined) {
    const credentials = optionalString(authentication.credentials, "authentication.credentials");
    valid.authentication = { scheme: requireText(authentication.scheme, "authentication.scheme"), ...(credentials === undefined ? {} : { credentials }) };
  }
  return valid;
}
