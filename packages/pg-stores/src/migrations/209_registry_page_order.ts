import type { Migration } from "./migration";

// The registries' lists page in their order, (created_at, id) or by name, with ids and names compared
// COLLATE "C": these indexes hold that order, so a page starts where the last one ended without
// reading and sorting the tenant's earlier rows. They replace the creation indexes they extend.
export const registryPageOrderMigration: Migration = {
  version: 209,
  name: "lattice_registry_page_order",
  sql: `
    CREATE INDEX lattice_assistants_by_page_order ON lattice_assistants (tenant_id, created_at, id COLLATE "C");
    DROP INDEX lattice_assistants_by_creation;

    CREATE INDEX lattice_model_providers_by_page_order ON lattice_model_providers (tenant_id, created_at, id COLLATE "C");
    DROP INDEX lattice_model_providers_by_creation;

    CREATE INDEX lattice_mcp_server_configs_by_page_order ON lattice_mcp_server_configs (tenant_id, created_at, key COLLATE "C");
    DROP INDEX lattice_mcp_server_configs_by_creation;

    CREATE INDEX lattice_plugin_settings_by_page_order ON lattice_plugin_settings (tenant_id, name COLLATE "C");
  `,
};
