import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every statement names its tenant: rows are keyed by (tenant_id, id).

const COLUMNS =
  "tenant_id, id, name, graph, model, system_prompt, tools, description, metadata, version, graph_config, graph_context, created_at, updated_at";

const VERSION_FIELDS = "name, graph, model, system_prompt, tools, description, metadata, graph_config, graph_context";

/** Records the assistant rows of `changed` as their current version (made at their updated_at). */
const RECORD_VERSION = `
  INSERT INTO lattice_assistant_versions (tenant_id, assistant_id, version, ${VERSION_FIELDS}, created_at)
  SELECT tenant_id, id, version, ${VERSION_FIELDS}, updated_at
    FROM changed`;

/** No row when the tenant already has an assistant with this id; else the assistant, recorded as its version 1. */
export const INSERT_ASSISTANT = `
  WITH changed AS (
    INSERT INTO lattice_assistants
           (tenant_id, id, name, graph, model, system_prompt, tools, description, metadata, graph_config, graph_context, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::text[], $8, $9::jsonb, $10::jsonb, $11::jsonb, now(), now())
    ON CONFLICT (tenant_id, id) DO NOTHING
    RETURNING ${COLUMNS}
  ), recorded AS (${RECORD_VERSION})
  SELECT ${COLUMNS} FROM changed`;

export const GET_ASSISTANT = `
  SELECT ${COLUMNS}
    FROM lattice_assistants
   WHERE tenant_id = $1
     AND id = $2`;

/**
 * A page of the tenant's assistants, oldest first: the $4 after the one created at $2 (epoch
 * microseconds) with id $3, from the first when $2 is NULL. Ids compare COLLATE "C", as the index does.
 */
export const LIST_ASSISTANTS = `
  SELECT ${COLUMNS},
         ${createdMicrosColumn("lattice_assistants")}
    FROM lattice_assistants
   WHERE tenant_id = $1
     AND ${afterCreation("lattice_assistants", "id", 2)}
   ORDER BY created_at, id COLLATE "C"
   LIMIT $4`;

/**
 * A NULL parameter keeps the column as it is; metadata is merged (top-level keys). Every update is a
 * new version, numbered one above the highest the assistant gave (`last_version`, read and bumped in
 * this row update, which waits for any other update of the row: no number is given twice), and
 * recorded as such.
 */
export const UPDATE_ASSISTANT = `
  WITH changed AS (
    UPDATE lattice_assistants
       SET name = COALESCE($3, name),
           graph = COALESCE($4, graph),
           model = COALESCE($5::jsonb, model),
           system_prompt = COALESCE($6, system_prompt),
           tools = COALESCE($7::text[], tools),
           description = COALESCE($8, description),
           metadata = metadata || COALESCE($9::jsonb, '{}'),
           graph_config = COALESCE($10::jsonb, graph_config),
           graph_context = COALESCE($11::jsonb, graph_context),
           version = last_version + 1,
           last_version = last_version + 1,
           updated_at = now()
     WHERE tenant_id = $1
       AND id = $2
    RETURNING ${COLUMNS}
  ), recorded AS (${RECORD_VERSION})
  SELECT ${COLUMNS} FROM changed`;

/**
 * The assistant's versions, newest first, whose metadata contains $3 (NULL: all), $4 from offset $5.
 * No row when the tenant has no such assistant; one row of NULLs when no version matches.
 */
export const LIST_ASSISTANT_VERSIONS = `
  SELECT v.tenant_id, v.assistant_id, v.version, ${VERSION_FIELDS.split(", ").map((field) => `v.${field}`).join(", ")}, v.created_at
    FROM lattice_assistants a
    LEFT JOIN LATERAL (
      SELECT *
        FROM lattice_assistant_versions
       WHERE tenant_id = a.tenant_id
         AND assistant_id = a.id
         AND ($3::jsonb IS NULL OR metadata @> $3::jsonb)
       ORDER BY version DESC
       LIMIT $4 OFFSET $5
    ) v ON true
   WHERE a.tenant_id = $1
     AND a.id = $2`;

/** Makes version $3 current: the assistant's fields become that version's. No row when there is no such assistant or version. */
export const SET_CURRENT_ASSISTANT_VERSION = `
  UPDATE lattice_assistants a
     SET ${VERSION_FIELDS.split(", ").map((field) => `${field} = v.${field}`).join(", ")},
         version = v.version,
         updated_at = now()
    FROM lattice_assistant_versions v
   WHERE a.tenant_id = $1
     AND a.id = $2
     AND v.tenant_id = a.tenant_id
     AND v.assistant_id = a.id
     AND v.version = $3
  RETURNING ${COLUMNS.split(", ").map((column) => `a.${column}`).join(", ")}`;

export const DELETE_ASSISTANT = `
  DELETE FROM lattice_assistants
   WHERE tenant_id = $1
     AND id = $2`;
