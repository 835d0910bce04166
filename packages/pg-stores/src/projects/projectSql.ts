import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every statement names its tenant: projects are keyed by (tenant_id, id), memberships by
// (tenant_id, project_id, assistant_id). Lists page in creation order, by (created_at, id).

const COLUMNS = "tenant_id, id, name, description, metadata, created_at, updated_at";
const PROJECT_COLUMNS = "p.tenant_id, p.id, p.name, p.description, p.metadata, p.created_at, p.updated_at";
const BOT_COLUMNS = "tenant_id, project_id, assistant_id, created_at";

/** No row when the tenant already has a project with this id. */
export const INSERT_PROJECT = `
  INSERT INTO lattice_projects (tenant_id, id, name, description, metadata, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5::jsonb, now(), now())
  ON CONFLICT (tenant_id, id) DO NOTHING
  RETURNING ${COLUMNS}`;

export const GET_PROJECT = `
  SELECT ${COLUMNS}
    FROM lattice_projects
   WHERE tenant_id = $1
     AND id = $2`;

/** A page after ($2 epoch microseconds, $3 id), $4 rows (index of migration 210). */
export const LIST_PROJECTS = `
  SELECT ${PROJECT_COLUMNS}, ${createdMicrosColumn("p")}
    FROM lattice_projects p
   WHERE p.tenant_id = $1
     AND ${afterCreation("p", "id", 2)}
   ORDER BY p.created_at, p.id COLLATE "C"
   LIMIT $4`;

/** A NULL parameter keeps the column as it is; updated_at never goes back, even if the clock does. */
export const UPDATE_PROJECT = `
  UPDATE lattice_projects
     SET name = COALESCE($3, name),
         description = COALESCE($4, description),
         metadata = COALESCE($5::jsonb, metadata),
         updated_at = GREATEST(now(), updated_at)
   WHERE tenant_id = $1
     AND id = $2
  RETURNING ${COLUMNS}`;

/** Memberships go with the project (ON DELETE CASCADE). */
export const DELETE_PROJECT = `
  DELETE FROM lattice_projects
   WHERE tenant_id = $1
     AND id = $2`;

/**
 * Inserts the membership only when the project exists; an existing membership is returned unchanged
 * (the no-op update makes RETURNING yield it, also to a racer that lost the insert).
 */
export const ADD_BOT = `
  INSERT INTO lattice_project_bots (tenant_id, project_id, assistant_id, created_at)
  SELECT tenant_id, id, $3, now()
    FROM lattice_projects
   WHERE tenant_id = $1
     AND id = $2
  ON CONFLICT (tenant_id, project_id, assistant_id) DO UPDATE SET created_at = lattice_project_bots.created_at
  RETURNING ${BOT_COLUMNS}`;

export const REMOVE_BOT = `
  DELETE FROM lattice_project_bots
   WHERE tenant_id = $1
     AND project_id = $2
     AND assistant_id = $3`;

/** A page after ($3 epoch microseconds, $4 assistant id), $5 rows (index of migration 210). */
export const LIST_BOTS = `
  SELECT ${BOT_COLUMNS}, ${createdMicrosColumn("b")}
    FROM lattice_project_bots b
   WHERE b.tenant_id = $1
     AND b.project_id = $2
     AND ${afterCreation("b", "assistant_id", 3)}
   ORDER BY b.created_at, b.assistant_id COLLATE "C"
   LIMIT $5`;

/**
 * A page after ($3 epoch microseconds, $4 project id), $5 rows. It sorts the assistant's memberships
 * (found by lattice_project_bots_by_assistant): an assistant belongs to few projects.
 */
export const LIST_BOT_PROJECTS = `
  SELECT ${PROJECT_COLUMNS}, ${createdMicrosColumn("p")}
    FROM lattice_projects p
    JOIN lattice_project_bots b ON b.tenant_id = p.tenant_id AND b.project_id = p.id
   WHERE b.tenant_id = $1
     AND b.assistant_id = $2
     AND ${afterCreation("p", "id", 3)}
   ORDER BY p.created_at, p.id COLLATE "C"
   LIMIT $5`;
