import { type PageKey, requireTenantId, validatePluginSetting } from "@axiom-lattice/core";
import type { Page, PageRequest, PluginSetting, PluginSettingStore } from "@axiom-lattice/protocols";
import { readPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { LIST_PLUGIN_SETTINGS, UPSERT_PLUGIN_SETTING } from "./pluginSettingSql";

interface PluginSettingRow {
  tenant_id: string;
  name: string;
  enabled: boolean;
  updated_at: Date;
}

const toSetting = (row: PluginSettingRow): PluginSetting => ({ tenantId: row.tenant_id, name: row.name, enabled: row.enabled, updatedAt: row.updated_at });

/** {@link PluginSettingStore} on `lattice_plugin_settings`; every statement is scoped to one tenant. */
export class PostgreSQLPluginSettingStore extends PgStore implements PluginSettingStore {
  async list(tenantId: string, page: PageRequest): Promise<Page<PluginSetting>> {
    const tenant = requireTenantId(tenantId);
    const read = (after: PageKey | null, fetch: number) => this.rows(LIST_PLUGIN_SETTINGS, [tenant, after?.[0] ?? null, fetch]);
    return readPage(page, ["string"], read, (row) => [row.name], toSetting);
  }

  async set(tenantId: string, name: string, enabled: boolean): Promise<PluginSetting> {
    const valid = validatePluginSetting(tenantId, name, enabled);
    const [row] = await this.rows(UPSERT_PLUGIN_SETTING, [valid.tenantId, valid.name, valid.enabled]);
    return toSetting(row);
  }

  private async rows(sql: string, params: unknown[]): Promise<PluginSettingRow[]> {
    await this.initialize();
    return (await this.pool.query<PluginSettingRow>(sql, params)).rows;
  }
}
