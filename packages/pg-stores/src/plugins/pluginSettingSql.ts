// Every statement names its tenant: rows are keyed by (tenant_id, name).

const COLUMNS = "tenant_id, name, enabled, updated_at";

// COLLATE "C": ordered by code point, like the in-memory store, whatever the database's locale.
export const LIST_PLUGIN_SETTINGS = `
  SELECT ${COLUMNS}
    FROM lattice_plugin_settings
   WHERE tenant_id = $1
   ORDER BY name COLLATE "C"`;

export const UPSERT_PLUGIN_SETTING = `
  INSERT INTO lattice_plugin_settings (tenant_id, name, enabled, updated_at)
  VALUES ($1, $2, $3, now())
  ON CONFLICT (tenant_id, name) DO UPDATE
     SET enabled = EXCLUDED.enabled,
         updated_at = now()
  RETURNING ${COLUMNS}`;
