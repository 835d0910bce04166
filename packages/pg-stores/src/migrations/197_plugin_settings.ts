import type { Migration } from "./migration";

// Each tenant's plugin settings: one row per tool the tenant switched on or off (no row: enabled).
export const pluginSettingsMigration: Migration = {
  version: 197,
  name: "lattice_plugin_settings",
  sql: `
    CREATE TABLE lattice_plugin_settings (
      tenant_id  text        NOT NULL,
      name       text        NOT NULL,
      enabled    boolean     NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, name)
    );
  `,
};
