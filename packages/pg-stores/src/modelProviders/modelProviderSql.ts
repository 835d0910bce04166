import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every statement names its tenant: rows are keyed by (tenant_id, id).

const COLUMNS = "tenant_id, id, kind, base_url, models, enabled, api_key_sealed, created_at, updated_at";

/** No row when the tenant already has a provider with this id. */
export const INSERT_MODEL_PROVIDER = `
  INSERT INTO lattice_model_providers (tenant_id, id, kind, base_url, models, api_key_sealed, enabled, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5::text[], $6, $7, now(), now())
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_MODEL_PROVIDER = `
  SELECT ${COLUMNS}
    FROM lattice_model_providers
   WHERE tenant_id = $1
     AND id = $2`;

/**
 * A page of the tenant's providers, oldest first: the $4 after the one created at $2 (epoch
 * microseconds) with id $3, from the first when $2 is NULL. Ids compare COLLATE "C", as the index does.
 */
export const LIST_MODEL_PROVIDERS = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_model_providers")}
    FROM lattice_model_providers
   WHERE tenant_id = $1
     AND ${afterCreation("lattice_model_providers", "id", 2)}
   ORDER BY created_at, id COLLATE "C"
   LIMIT $4`;

/**
 * A NULL kind, models or enabled keeps the column. Base URL and key take a flag each, since NULL is also
 * what removes them: $4/$6 say whether to set the column to $5/$7.
 */
export const UPDATE_MODEL_PROVIDER = `
  UPDATE lattice_model_providers
     SET kind = COALESCE($3, kind),
         base_url = CASE WHEN $4::boolean THEN $5 ELSE base_url END,
         api_key_sealed = CASE WHEN $6::boolean THEN $7 ELSE api_key_sealed END,
         models = COALESCE($8::text[], models),
         enabled = COALESCE($9::boolean, enabled),
         updated_at = now()
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/** The row an update is planned against, locked until the update commits. */
export const LOCK_MODEL_PROVIDER = `
  SELECT kind, base_url, api_key_sealed IS NOT NULL AS has_api_key
    FROM lattice_model_providers
   WHERE tenant_id = $1
     AND id = $2
     FOR UPDATE`;

export const DELETE_MODEL_PROVIDER = `
  DELETE FROM lattice_model_providers
   WHERE tenant_id = $1
     AND id = $2`;

/** The provider a discovery records for, locked: two discoveries of one provider apply one after the other. */
export const LOCK_PROVIDER_FOR_DISCOVERY = `
  SELECT 1
    FROM lattice_model_providers
   WHERE tenant_id = $1
     AND id = $2
     FOR UPDATE`;

const MODEL_COLUMNS = "provider_id, model, enabled, available, discovered_at, last_seen_at";

/** The models $3 listed: new ones inserted (enabled), known ones available again with their flag kept. `added` tells them apart. */
export const UPSERT_DISCOVERED_MODELS = `
  INSERT INTO lattice_provider_models AS stored (tenant_id, provider_id, model)
  SELECT $1, $2, listed FROM unnest($3::text[]) AS listed
  ON CONFLICT (tenant_id, provider_id, model) DO UPDATE SET available = true, last_seen_at = now()
  RETURNING (xmax = 0) AS added`;

/** The provider's models that $3 no longer lists, marked unavailable (those already so are left). */
export const MARK_VANISHED_MODELS = `
  UPDATE lattice_provider_models
     SET available = false
   WHERE tenant_id = $1
     AND provider_id = $2
     AND available
     AND NOT (model = ANY($3::text[]))`;

/** A page of the provider's models by name: the $4 after $3 (from the first when NULL). */
export const LIST_PROVIDER_MODELS = `
  SELECT ${MODEL_COLUMNS}
    FROM lattice_provider_models
   WHERE tenant_id = $1
     AND provider_id = $2
     AND ($3::text IS NULL OR model > $3::text)
   ORDER BY model
   LIMIT $4`;

export const GET_PROVIDER_MODEL = `
  SELECT ${MODEL_COLUMNS}
    FROM lattice_provider_models
   WHERE tenant_id = $1
     AND provider_id = $2
     AND model = $3`;

export const SET_MODEL_ENABLED = `
  UPDATE lattice_provider_models
     SET enabled = $4
   WHERE tenant_id = $1
     AND provider_id = $2
     AND model = $3
  RETURNING ${MODEL_COLUMNS}`;
