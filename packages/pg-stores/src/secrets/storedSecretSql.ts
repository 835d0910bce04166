// Every stored secret, one row per value: (tenant_id, id, path, value), where `path` locates the value
// inside its row (empty for a column, a jsonb path otherwise). Pages go in (tenant_id, id, path) order
// after the cursor $1-$3, skipping values that start with $4 (already sealed as wanted), $5 rows each.

export const PAGE_PROVIDER_KEYS = `
  SELECT tenant_id, id, '{}'::text[] AS path, api_key_sealed AS value
    FROM lattice_model_providers
   WHERE api_key_sealed IS NOT NULL
     AND NOT starts_with(api_key_sealed, $4)
     AND (tenant_id, id, '{}'::text[]) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id
   LIMIT $5`;

export const PAGE_ASSISTANT_KEYS = `
  SELECT tenant_id, id, ARRAY['apiKey'] AS path, model->>'apiKey' AS value
    FROM lattice_assistants
   WHERE model->>'apiKey' IS NOT NULL
     AND NOT starts_with(model->>'apiKey', $4)
     AND (tenant_id, id, ARRAY['apiKey']) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id
   LIMIT $5`;

/** A version's key: its id the assistant's, its path the version number then `apiKey`. */
export const PAGE_ASSISTANT_VERSION_KEYS = `
  SELECT tenant_id, id, path, value
    FROM (SELECT tenant_id, assistant_id AS id, ARRAY[version::text, 'apiKey'] AS path, model->>'apiKey' AS value
            FROM lattice_assistant_versions
           WHERE model->>'apiKey' IS NOT NULL) AS secret
   WHERE NOT starts_with(value, $4)
     AND (tenant_id, id, path) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id, path
   LIMIT $5`;

export const PAGE_MCP_SECRETS = `
  SELECT tenant_id, id, path, value
    FROM (SELECT config.tenant_id, config.key AS id, ARRAY[field.name, entry.key] AS path, entry.value
            FROM lattice_mcp_server_configs config
           CROSS JOIN (VALUES ('env'), ('headers')) AS field(name)
           CROSS JOIN LATERAL jsonb_each_text(COALESCE(config.config->field.name, '{}'::jsonb)) AS entry) AS secret
   WHERE NOT starts_with(value, $4)
     AND (tenant_id, id, path) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id, path
   LIMIT $5`;

// Compare-and-set: $3 is the value read, $4 the resealed one. No row when the value changed
// meanwhile (a write, or another replica's reseal), which then stays as that writer left it.

export const RESEAL_PROVIDER_KEY = `
  UPDATE lattice_model_providers
     SET api_key_sealed = $4
   WHERE tenant_id = $1
     AND id = $2
     AND api_key_sealed = $3`;

export const RESEAL_ASSISTANT_KEY = `
  UPDATE lattice_assistants
     SET model = jsonb_set(model, $5::text[], to_jsonb($4::text))
   WHERE tenant_id = $1
     AND id = $2
     AND model #>> $5::text[] = $3`;

export const RESEAL_ASSISTANT_VERSION_KEY = `
  UPDATE lattice_assistant_versions
     SET model = jsonb_set(model, '{apiKey}', to_jsonb($4::text))
   WHERE tenant_id = $1
     AND assistant_id = $2
     AND version = ($5::text[])[1]::integer
     AND model->>'apiKey' = $3`;

export const RESEAL_MCP_SECRET = `
  UPDATE lattice_mcp_server_configs
     SET config = jsonb_set(config, $5::text[], to_jsonb($4::text))
   WHERE tenant_id = $1
     AND key = $2
     AND config #>> $5::text[] = $3`;

/** A web app's secrets, one row per column set: the path names the column. */
export const PAGE_WEB_APP_SECRETS = `
  SELECT tenant_id, id, path, value
    FROM (SELECT app.tenant_id, app.id, ARRAY[secret.name] AS path, secret.value
            FROM lattice_web_apps app
           CROSS JOIN LATERAL (VALUES ('secret_sealed', app.secret_sealed),
                                      ('previous_secret_sealed', app.previous_secret_sealed),
                                      ('preview_secret_sealed', app.preview_secret_sealed)) AS secret(name, value)
           WHERE secret.value IS NOT NULL) AS secret
   WHERE NOT starts_with(value, $4)
     AND (tenant_id, id, path) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id, path
   LIMIT $5`;

/** The column $5 names (a path of one) is compared and set; the others are written back as they are. */
export const RESEAL_WEB_APP_SECRET = `
  UPDATE lattice_web_apps
     SET secret_sealed = CASE WHEN ($5::text[])[1] = 'secret_sealed' THEN $4 ELSE secret_sealed END,
         previous_secret_sealed = CASE WHEN ($5::text[])[1] = 'previous_secret_sealed' THEN $4 ELSE previous_secret_sealed END,
         preview_secret_sealed = CASE WHEN ($5::text[])[1] = 'preview_secret_sealed' THEN $4 ELSE preview_secret_sealed END
   WHERE tenant_id = $1
     AND id = $2
     AND CASE ($5::text[])[1]
           WHEN 'secret_sealed' THEN secret_sealed
           WHEN 'previous_secret_sealed' THEN previous_secret_sealed
           WHEN 'preview_secret_sealed' THEN preview_secret_sealed
         END = $3`;

/** A push configuration is named `<task_id>/<id>` (neither holds a '/'): its token and its credentials. */
export const PAGE_A2A_PUSH_SECRETS = `
  SELECT tenant_id, id, path, value
    FROM (SELECT config.tenant_id, config.task_id || '/' || config.id AS id, ARRAY[secret.name] AS path, secret.value
            FROM lattice_a2a_push_configs config
           CROSS JOIN LATERAL (VALUES ('token', config.token), ('auth_credentials', config.auth_credentials)) AS secret(name, value)
           WHERE secret.value IS NOT NULL) AS secret
   WHERE NOT starts_with(value, $4)
     AND (tenant_id, id, path) > ($1, $2, $3::text[])
   ORDER BY tenant_id, id, path
   LIMIT $5`;

/** The column $5 names (a path of one) is compared and set; the other is written back as it is. */
export const RESEAL_A2A_PUSH_SECRET = `
  UPDATE lattice_a2a_push_configs
     SET token = CASE WHEN ($5::text[])[1] = 'token' THEN $4 ELSE token END,
         auth_credentials = CASE WHEN ($5::text[])[1] = 'auth_credentials' THEN $4 ELSE auth_credentials END
   WHERE tenant_id = $1
     AND task_id || '/' || id = $2
     AND CASE ($5::text[])[1]
           WHEN 'token' THEN token
           WHEN 'auth_credentials' THEN auth_credentials
         END = $3`;
