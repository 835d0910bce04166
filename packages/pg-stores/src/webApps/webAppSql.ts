import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Web apps are keyed by id alone (runtime paths name no tenant); every operator statement still names
// its tenant, so another tenant's web app is as missing.

const COLUMNS = `id, tenant_id, assistant_id, name, status, appearance, allowed_origins, identity_mode,
  secret_sealed IS NOT NULL AS has_secret, created_at, updated_at`;

/** No row when any tenant has a web app with this id. */
export const INSERT_WEB_APP = `
  INSERT INTO lattice_web_apps (id, tenant_id, assistant_id, name, status, appearance, allowed_origins, identity_mode, preview_secret_sealed)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::text[], $8, $9)
  ON CONFLICT (id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_WEB_APP = `
  SELECT ${COLUMNS}
    FROM lattice_web_apps
   WHERE tenant_id = $1
     AND id = $2`;

/** The web app with its sealed keys, by id alone: for a runtime request. */
export const GET_WEB_APP_WITH_KEYS = `
  SELECT ${COLUMNS}, secret_sealed, previous_secret_sealed, previous_valid_until, preview_secret_sealed
    FROM lattice_web_apps
   WHERE id = $1`;

/** A page of the tenant's web apps, oldest first, after ($2 epoch microseconds, $3 id); $4 rows. */
export const LIST_WEB_APPS = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_web_apps")}
    FROM lattice_web_apps
   WHERE tenant_id = $1
     AND ${afterCreation("lattice_web_apps", "id", 2)}
   ORDER BY created_at, id COLLATE "C"
   LIMIT $4`;

/** NULL keeps a column; the appearance is merged by the caller, under the row lock. */
export const UPDATE_WEB_APP = `
  UPDATE lattice_web_apps
     SET assistant_id = COALESCE($3, assistant_id),
         name = COALESCE($4, name),
         status = COALESCE($5, status),
         appearance = COALESCE($6::jsonb, appearance),
         allowed_origins = COALESCE($7::text[], allowed_origins),
         identity_mode = COALESCE($8, identity_mode),
         updated_at = now()
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/** The appearance an update merges into, locked until the update commits. */
export const LOCK_WEB_APP_APPEARANCE = `
  SELECT appearance
    FROM lattice_web_apps
   WHERE tenant_id = $1
     AND id = $2
     FOR UPDATE`;

/** $3 becomes the secret; the one it replaces stays valid until $4 (none replaced: no previous). */
export const ROTATE_WEB_APP_SECRET = `
  UPDATE lattice_web_apps
     SET previous_secret_sealed = secret_sealed,
         previous_valid_until = CASE WHEN secret_sealed IS NULL THEN NULL ELSE $4::timestamptz END,
         secret_sealed = $3,
         updated_at = now()
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

export const DELETE_WEB_APP = `
  DELETE FROM lattice_web_apps
   WHERE tenant_id = $1
     AND id = $2`;

const THREAD_COLUMNS = "web_app_id, thread_id, user_id, created_at";

/** No row when the tenant has no such web app, or the thread is owned already (told apart by the caller). */
export const INSERT_WEB_APP_THREAD = `
  INSERT INTO lattice_web_app_threads (tenant_id, web_app_id, thread_id, user_id)
  SELECT tenant_id, id, $3, $4
    FROM lattice_web_apps
   WHERE tenant_id = $1
     AND id = $2
  ON CONFLICT (web_app_id, thread_id) DO NOTHING
  RETURNING ${THREAD_COLUMNS}`;

export const GET_WEB_APP_THREAD = `
  SELECT ${THREAD_COLUMNS}
    FROM lattice_web_app_threads
   WHERE tenant_id = $1
     AND web_app_id = $2
     AND thread_id = $3`;

/** A page of the user's threads, oldest first, after ($4 epoch microseconds, $5 thread id); $6 rows. */
export const LIST_USER_THREADS = `
  SELECT ${THREAD_COLUMNS},
         ${createdMicrosColumn("lattice_web_app_threads")}
    FROM lattice_web_app_threads
   WHERE tenant_id = $1
     AND web_app_id = $2
     AND user_id = $3
     AND ${afterCreation("lattice_web_app_threads", "thread_id", 4)}
   ORDER BY created_at, thread_id COLLATE "C"
   LIMIT $6`;
