import type { Page, PageRequest, PluginSetting, PluginSettingStore } from "@axiom-lattice/protocols";
import { comparePageKeys, pageOfSorted } from "../stores/keysetPages";
import { requireTenantId } from "../stores/storeArguments";
import { validatePluginSetting } from "./pluginSettingArguments";

/** {@link PluginSettingStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryPluginSettingStore implements PluginSettingStore {
  private readonly tenants = new Map<string, Map<string, PluginSetting>>();

  async list(tenantId: string, page: PageRequest): Promise<Page<PluginSetting>> {
    const keyOf = (setting: PluginSetting) => [setting.name];
    const settings = [...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])].sort((a, b) => comparePageKeys(keyOf(a), keyOf(b)));
    const listed = pageOfSorted(settings, page, ["string"], keyOf);
    return { ...listed, items: listed.items.map((setting) => ({ ...setting })) };
  }

  async set(tenantId: string, name: string, enabled: boolean): Promise<PluginSetting> {
    const valid = validatePluginSetting(tenantId, name, enabled);
    const settings = this.tenants.get(valid.tenantId) ?? new Map<string, PluginSetting>();
    const setting: PluginSetting = { ...valid, updatedAt: new Date() };
    settings.set(valid.name, setting);
    this.tenants.set(valid.tenantId, settings);
    return { ...setting };
  }
}
