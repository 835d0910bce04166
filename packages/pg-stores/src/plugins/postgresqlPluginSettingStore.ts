import { requireTenantId, validatePluginSetting } from "@axiom-lattice/core";
import type { PluginSetting, PluginSettingStore } from "@axiom-lattice/protocols";
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
  async list(tenantId: string): Promise<PluginSetting[]> {
    return (await this.rows(LIST_PLUGIN_SETTINGS, [requireTenantId(tenantId)])).map(toSetting);
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
