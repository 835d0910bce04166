// Every statement names its tenant: rows are keyed by (tenant_id, name).

const COLUMNS = "tenant_id, name, enabled, updated_at";

/**
 * A page of the tenant's settings by name: the $3 after name $2, from the first when $2 is NULL.
 * COLLATE "C": ordered by code point, like the in-memory store, whatever the database's locale.
 */
export const LIST_PLUGIN_SETTINGS = `
  SELECT ${COLUMNS}
    FROM lattice_plugin_settings
   WHERE tenant_id = $1
     AND ($2::text IS NULL OR name COLLATE "C" > $2::text)
   ORDER BY name COLLATE "C"
   LIMIT $3`;

export const UPSERT_PLUGIN_SETTING = `
  INSERT INTO lattice_plugin_settings (tenant_id, name, enabled, updated_at)
  VALUES ($1, $2, $3, now())
  ON CONFLICT (tenant_id, name) DO UPDATE
     SET enabled = EXCLUDED.enabled,
         updated_at = now()
  RETURNING ${COLUMNS}`;
