-- The models a provider's API listed at a discovery (POST /api/model-providers/{id}/discover), with
-- the operator's flag on each. A model no longer listed is marked unavailable, never deleted: its
-- flag survives until it comes back. Names compare COLLATE "C", so the key is the catalogue's page order.
CREATE TABLE lattice_provider_models (
  tenant_id text NOT NULL,
  provider_id text NOT NULL,
  model text COLLATE "C" NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  available boolean NOT NULL DEFAULT true,
  discovered_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, provider_id, model),
  FOREIGN KEY (tenant_id, provider_id) REFERENCES lattice_model_providers (tenant_id, id) ON DELETE CASCADE
);
