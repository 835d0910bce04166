import type { Migration } from "./migration";

// Each tenant's catalog of model providers. The API key is kept only sealed (AES-256-GCM, see
// SecretKeyring in core): the column holds `enc:<key version>:…`, never the key itself.
export const modelProvidersMigration: Migration = {
  version: 195,
  name: "lattice_model_providers",
  sql: `
    CREATE TABLE lattice_model_providers (
      tenant_id      text        NOT NULL,
      id             text        NOT NULL,
      kind           text        NOT NULL,
      base_url       text,
      models         text[]      NOT NULL DEFAULT '{}',
      api_key_sealed text        CHECK (api_key_sealed LIKE 'enc:%'),
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    );

    CREATE INDEX lattice_model_providers_by_creation ON lattice_model_providers (tenant_id, created_at);
  `,
};
