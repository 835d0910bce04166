import type { Migration } from "./migration";

// Web apps: an assistant published to end users. Ids are unique across tenants, since runtime paths
// (`/web-apps/{id}/…`) name no tenant. Secrets are kept only sealed (`enc:<key version>:…`). Each
// thread an end user opens is owned by them: listed per (web app, user) in creation order.
export const webAppsMigration: Migration = {
  version: 214,
  name: "lattice_web_apps",
  sql: `
    CREATE TABLE lattice_web_apps (
      id                    text        PRIMARY KEY,
      tenant_id             text        NOT NULL,
      assistant_id          text        NOT NULL,
      name                  text        NOT NULL,
      status                text        NOT NULL CHECK (status IN ('draft', 'published', 'disabled')),
      appearance            jsonb       NOT NULL,
      allowed_origins       text[]      NOT NULL DEFAULT '{}',
      identity_mode         text        NOT NULL CHECK (identity_mode IN ('signed', 'anonymous')),
      secret_sealed         text        CHECK (secret_sealed LIKE 'enc:%'),
      previous_secret_sealed text       CHECK (previous_secret_sealed LIKE 'enc:%'),
      previous_valid_until  timestamptz,
      preview_secret_sealed text        NOT NULL CHECK (preview_secret_sealed LIKE 'enc:%'),
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, id)
    );

    CREATE INDEX lattice_web_apps_page ON lattice_web_apps (tenant_id, created_at, id COLLATE "C");

    CREATE TABLE lattice_web_app_threads (
      tenant_id  text        NOT NULL,
      web_app_id text        NOT NULL,
      thread_id  text        NOT NULL,
      user_id    text        NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (web_app_id, thread_id),
      FOREIGN KEY (tenant_id, web_app_id) REFERENCES lattice_web_apps (tenant_id, id) ON DELETE CASCADE
    );

    CREATE INDEX lattice_web_app_threads_page ON lattice_web_app_threads (web_app_id, user_id, created_at, thread_id COLLATE "C");
  `,
};
