-- API keys: a tenant's long-lived credentials for programs. Only the secret's SHA-256 is kept; a
-- presented key is found by that hash (unique, so one index probe), across tenants, since a request
-- names its key and not its tenant. Revoked keys keep their row, so that when they were last used and
-- when they were revoked stay visible.
CREATE TABLE lattice_api_keys (
  id            text        PRIMARY KEY,
  tenant_id     text        NOT NULL,
  name          text        NOT NULL,
  scope         text        NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
  assistant_ids text[]      CHECK (cardinality(assistant_ids) > 0),
  prefix        text        NOT NULL,
  secret_hash   text        NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  expires_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);

CREATE INDEX lattice_api_keys_page ON lattice_api_keys (tenant_id, created_at, id COLLATE "C");
