import type { Page, PageRequest } from "../page";

/**
 * A tenant's setting for one entry of its plugin catalog (a tool its assistants could enable), by
 * the tool's name. An entry without a setting is enabled: only the tenant's choices are stored.
 */
export interface PluginSetting {
  tenantId: string;
  name: string;
  enabled: boolean;
  updatedAt: Date;
}

/** Per-tenant plugin settings: the admin's kill switch for tools. */
export interface PluginSettingStore {
  /** The tenant's settings, by name (code point order). */
  list(tenantId: string, page: PageRequest): Promise<Page<PluginSetting>>;
  /** Records whether the tenant's assistants may use the named tool (replacing an earlier setting). */
  set(tenantId: string, name: string, enabled: boolean): Promise<PluginSetting>;
}
