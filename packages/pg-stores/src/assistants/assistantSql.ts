// Every statement names its tenant: rows are keyed by (tenant_id, id).

const COLUMNS =
  "tenant_id, id, name, graph, model, system_prompt, tools, description, metadata, version, graph_config, graph_context, created_at, updated_at";

/** No row when the tenant already has an assistant with this id. */
export const INSERT_ASSISTANT = `
  INSERT INTO lattice_assistants
         (tenant_id, id, name, graph, model, system_prompt, tools, description, metadata, graph_config, graph_context, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::text[], $8, $9::jsonb, $10::jsonb, $11::jsonb, now(), now())
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_ASSISTANT = `
  SELECT ${COLUMNS}
    FROM lattice_assistants
   WHERE tenant_id = $1
     AND id = $2`;

export const LIST_ASSISTANTS = `
  SELECT ${COLUMNS}
    FROM lattice_assistants
   WHERE tenant_id = $1
   ORDER BY created_at, id`;

/** A NULL parameter keeps the column as it is; metadata is merged (top-level keys); every update counts one more version. */
export const UPDATE_ASSISTANT = `
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
         version = version + 1,
         updated_at = now()
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

export const DELETE_ASSISTANT = `
  DELETE FROM lattice_assistants
   WHERE tenant_id = $1
     AND id = $2`;
