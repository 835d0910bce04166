import type { Migration } from "./migration";

// Projects, their bots and their rooms page in creation order, by (created_at, id COLLATE "C"): these
// indexes let a page start where the last one ended instead of reading every row before it. Each
// replaces the (…, created_at) index it extends.
export const creationOrderPagesMigration: Migration = {
  version: 210,
  name: "lattice_creation_order_pages",
  sql: `
    CREATE INDEX lattice_projects_page ON lattice_projects (tenant_id, created_at, id COLLATE "C");
    DROP INDEX lattice_projects_by_creation;

    CREATE INDEX lattice_project_bots_page ON lattice_project_bots (tenant_id, project_id, created_at, assistant_id COLLATE "C");

    CREATE INDEX lattice_project_rooms_page ON lattice_project_rooms (tenant_id, project_id, created_at, id COLLATE "C");
    DROP INDEX lattice_project_rooms_by_creation;
  `,
};
