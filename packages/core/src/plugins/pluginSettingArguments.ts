import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { parseStoreArgument } from "../validation/parseStoreArgument";

const settingSchema = z.object({ tenantId: rules.text, name: rules.text, enabled: rules.boolean });

/** Checks what `PluginSettingStore.set` takes; throws `StoreArgumentError`, so nothing is written. */
export function validatePluginSetting(tenantId: unknown, name: unknown, enabled: unknown): { tenantId: string; name: string; enabled: boolean } {
  return parseStoreArgument(settingSchema, { tenantId, name, enabled }, "Plugin setting");
}
