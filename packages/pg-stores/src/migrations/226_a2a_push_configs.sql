-- A2A clients' push-notification configurations (apps/gateway/src/a2a): where the gateway POSTs a
-- task's state once it stops. Keyed by tenant, task (its first run's id) and the client's id.
CREATE TABLE lattice_a2a_push_configs (
  tenant_id text NOT NULL,
  task_id text NOT NULL,
  id text NOT NULL,
  url text NOT NULL,
  token text,
  auth_scheme text,
  auth_credentials text,
  wire_version text NOT NULL CHECK (wire_version IN ('1.0', '0.3')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, id)
);
