import type { PluginSetting, PluginSettingStore } from "@axiom-lattice/protocols";
import { requireTenantId } from "../stores/storeArguments";
import { validatePluginSetting } from "./pluginSettingArguments";

/** {@link PluginSettingStore} within one process: the same contract as the PostgreSQL store. */
export class InMemoryPluginSettingStore implements PluginSettingStore {
  private readonly tenants = new Map<string, Map<string, PluginSetting>>();

  async list(tenantId: string): Promise<PluginSetting[]> {
    const settings = [...(this.tenants.get(requireTenantId(tenantId))?.values() ?? [])];
    return settings.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((setting) => ({ ...setting }));
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
