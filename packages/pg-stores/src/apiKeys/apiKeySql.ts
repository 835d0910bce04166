import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Keys are keyed by id alone (a use is recorded by id, a presented key found by its hash); every
// operator statement still names its tenant, so another tenant's key is as missing. The hash is never
// selected: nothing reads it back.

const COLUMNS = "id, tenant_id, name, scope, assistant_ids, prefix, expires_at, created_at, last_used_at, revoked_at";

/** No row when the id or the hash is taken. */
export const INSERT_API_KEY = `
  INSERT INTO lattice_api_keys (id, tenant_id, name, scope, assistant_ids, prefix, secret_hash, expires_at)
  VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8)
  ON CONFLICT DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_API_KEY = `
  SELECT ${COLUMNS}
    FROM lattice_api_keys
   WHERE tenant_id = $1
     AND id = $2`;

/** A page of the tenant's keys, oldest first, after ($2 epoch microseconds, $3 id); $4 rows. */
export const LIST_API_KEYS = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_api_keys")}
    FROM lattice_api_keys
   WHERE tenant_id = $1
     AND ${afterCreation("lattice_api_keys", "id", 2)}
   ORDER BY created_at, id COLLATE "C"
   LIMIT $4`;

/** The first revocation time stays. */
export const REVOKE_API_KEY = `
  UPDATE lattice_api_keys
     SET revoked_at = COALESCE(revoked_at, $3)
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/** One probe of the unique index on secret_hash. */
export const FIND_API_KEY_BY_SECRET_HASH = `
  SELECT ${COLUMNS}
    FROM lattice_api_keys
   WHERE secret_hash = $1`;

/** A later use only: replicas recording out of order never move it back. */
export const RECORD_API_KEY_USE = `
  UPDATE lattice_api_keys
     SET last_used_at = $2
   WHERE id = $1
     AND (last_used_at IS NULL OR last_used_at < $2)`;
