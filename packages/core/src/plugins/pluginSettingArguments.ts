import { StoreArgumentError, requireTenantId, requireText } from "../stores/storeArguments";

/** Checks what `PluginSettingStore.set` takes; throws `StoreArgumentError`, so nothing is written. */
export function validatePluginSetting(tenantId: unknown, name: unknown, enabled: unknown): { tenantId: string; name: string; enabled: boolean } {
  if (typeof enabled !== "boolean") throw new StoreArgumentError(`enabled must be a boolean, got ${String(enabled)}`);
  return { tenantId: requireTenantId(tenantId), name: requireText(name, "plugin name"), enabled };
}
