CREATE TABLE public.lattice_thread_message_queue (
    id text NOT NULL,
    thread_id text NOT NULL,
    tenant_id text,
    assistant_id text,
    content jsonb NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    sequence bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    run_status text DEFAULT 'pending'::text NOT NULL,
    replica_id text,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_at timestamp with time zone,
    lease_expires_at timestamp with time zone,
    abort_requested_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    available_at timestamp with time zone,
    CONSTRAINT lattice_thread_message_queue_run_status_check CHECK ((run_status = ANY (ARRAY['pending'::text, 'running'::text, 'success'::text, 'error'::text, 'interrupted'::text, 'aborted'::text]))),
    CONSTRAINT lattice_thread_message_queue_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'processing'::text, 'completed'::text]))),
    CONSTRAINT lattice_thread_message_queue_tenant_id_check CHECK ((tenant_id <> ''::text))
);

CREATE FUNCTION public.lattice_enqueue_message(p_thread_id text, p_tenant_id text, p_assistant_id text, p_id text, p_content jsonb, p_priority integer, p_capacity integer, p_at_head boolean, p_delay_ms integer, p_tenant_capacity integer) RETURNS SETOF public.lattice_thread_message_queue
    LANGUAGE plpgsql
    AS $$
DECLARE
  tenant_size integer;
BEGIN
  IF p_tenant_capacity IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(198, hashtext(COALESCE(p_tenant_id, '')));
    SELECT count(*) INTO tenant_size
      FROM lattice_thread_message_queue
     WHERE COALESCE(tenant_id, '') = COALESCE(p_tenant_id, '')
       AND status IN ('pending', 'processing');
    IF tenant_size >= p_tenant_capacity THEN
      RAISE EXCEPTION 'tenant queue full' USING ERRCODE = 'LQ001';
    END IF;
  END IF;

  PERFORM pg_advisory_xact_lock(186, hashtext(p_thread_id));

  -- The tenant and assistant pairs are spelled out rather than IS NOT DISTINCT FROM, and pending and
  -- processing rows are counted apart, each through its own partial index (see the store's IN_QUEUE).
  RETURN QUERY
    WITH pending AS (
      SELECT count(*) AS size, max(priority) AS top_priority
        FROM lattice_thread_message_queue
       WHERE thread_id = p_thread_id
         AND (tenant_id = p_tenant_id OR (tenant_id IS NULL AND p_tenant_id IS NULL))
         AND (assistant_id = p_assistant_id OR (assistant_id IS NULL AND p_assistant_id IS NULL))
         AND status = 'pending'
    ), processing AS (
      SELECT count(*) AS size
        FROM lattice_thread_message_queue
       WHERE thread_id = p_thread_id
         AND (tenant_id = p_tenant_id OR (tenant_id IS NULL AND p_tenant_id IS NULL))
         AND (assistant_id = p_assistant_id OR (assistant_id IS NULL AND p_assistant_id IS NULL))
         AND status = 'processing'
    )
    INSERT INTO lattice_thread_message_queue
           (id, thread_id, tenant_id, assistant_id, content, priority, sequence, status, run_status, created_at, available_at)
    SELECT p_id, p_thread_id, p_tenant_id, p_assistant_id, p_content,
           CASE WHEN p_at_head THEN GREATEST(p_priority, pending.top_priority) ELSE p_priority END,
           CASE WHEN p_at_head THEN -nextval('lattice_thread_message_queue_sequence')
                ELSE nextval('lattice_thread_message_queue_sequence') END,
           'pending', 'pending', now(),
           CASE WHEN p_delay_ms > 0 THEN now() + p_delay_ms * interval '1 millisecond' END
      FROM pending, processing
     WHERE pending.size + processing.size < p_capacity
    RETURNING *;
END;
$$;

CREATE FUNCTION public.lattice_enqueue_message(p_thread_id text, p_tenant_id text, p_assistant_id text, p_id text, p_content jsonb, p_priority integer, p_capacity integer, p_at_head boolean, p_delay_ms integer, p_tenant_capacity integer, p_require_target boolean) RETURNS SETOF public.lattice_thread_message_queue
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF p_require_target THEN
    IF NOT EXISTS (
      SELECT 1
        FROM lattice_assistants
       WHERE tenant_id = p_tenant_id
         AND id = p_assistant_id
    ) THEN
      RAISE EXCEPTION 'assistant not found' USING ERRCODE = 'LQ002';
    END IF;
    IF NOT EXISTS (
      SELECT 1
        FROM lattice_threads
       WHERE tenant_id = p_tenant_id
         AND id = p_thread_id
         AND assistant_id = p_assistant_id
    ) THEN
      RAISE EXCEPTION 'thread not found' USING ERRCODE = 'LQ003';
    END IF;
  END IF;

  RETURN QUERY
    SELECT *
      FROM lattice_enqueue_message(p_thread_id, p_tenant_id, p_assistant_id, p_id, p_content,
                                   p_priority, p_capacity, p_at_head, p_delay_ms, p_tenant_capacity);
END;
$$;

CREATE FUNCTION public.lattice_release_lease_then_pending(p_key text, p_holder text, p_thread_id text, p_tenant_id text, p_assistant_id text) RETURNS SETOF public.lattice_thread_message_queue
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE lattice_leases
     SET expires_at = '-infinity'
   WHERE key = p_key
     AND holder = p_holder
     AND expires_at > '-infinity';

  RETURN QUERY
    SELECT *
      FROM lattice_thread_message_queue
     WHERE thread_id = p_thread_id
       AND (tenant_id = p_tenant_id OR (tenant_id IS NULL AND p_tenant_id IS NULL))
       AND (assistant_id = p_assistant_id OR (assistant_id IS NULL AND p_assistant_id IS NULL))
       AND status = 'pending'
     ORDER BY priority DESC, sequence;
END;
$$;

CREATE TABLE public.lattice_a2a_push_configs (
    tenant_id text NOT NULL,
    task_id text NOT NULL,
    id text NOT NULL,
    url text NOT NULL,
    token text,
    auth_scheme text,
    auth_credentials text,
    wire_version text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_a2a_push_configs_wire_version_check CHECK ((wire_version = ANY (ARRAY['1.0'::text, '0.3'::text])))
);

CREATE TABLE public.lattice_api_keys (
    id text NOT NULL,
    tenant_id text NOT NULL,
    name text NOT NULL,
    scope text NOT NULL,
    assistant_ids text[],
    prefix text NOT NULL,
    secret_hash text NOT NULL,
    expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT lattice_api_keys_assistant_ids_check CHECK ((cardinality(assistant_ids) > 0)),
    CONSTRAINT lattice_api_keys_scope_check CHECK ((scope = ANY (ARRAY['read'::text, 'write'::text, 'admin'::text]))),
    CONSTRAINT lattice_api_keys_secret_hash_check CHECK ((secret_hash ~ '^[0-9a-f]{64}$'::text))
);

CREATE TABLE public.lattice_assistant_versions (
    tenant_id text NOT NULL,
    assistant_id text NOT NULL,
    version integer NOT NULL,
    name text NOT NULL,
    graph text NOT NULL,
    model jsonb NOT NULL,
    system_prompt text,
    tools text[] NOT NULL,
    description text,
    metadata jsonb NOT NULL,
    graph_config jsonb NOT NULL,
    graph_context jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_assistants (
    tenant_id text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    graph text NOT NULL,
    model jsonb NOT NULL,
    system_prompt text,
    tools text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    description text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    graph_config jsonb DEFAULT '{}'::jsonb NOT NULL,
    graph_context jsonb DEFAULT '{}'::jsonb NOT NULL,
    last_version integer DEFAULT 1 NOT NULL
);

CREATE SEQUENCE public.lattice_lease_tokens
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.lattice_leases (
    key text NOT NULL,
    holder text NOT NULL,
    token bigint NOT NULL,
    acquired_at timestamp with time zone NOT NULL,
    renewed_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

CREATE TABLE public.lattice_mcp_server_configs (
    tenant_id text NOT NULL,
    key text NOT NULL,
    config jsonb NOT NULL,
    selected_tools text[] DEFAULT '{}'::text[] NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_mcp_server_configs_status_check CHECK ((status = ANY (ARRAY['connected'::text, 'disconnected'::text, 'error'::text])))
);

CREATE TABLE public.lattice_model_providers (
    tenant_id text NOT NULL,
    id text NOT NULL,
    kind text NOT NULL,
    base_url text,
    models text[] DEFAULT '{}'::text[] NOT NULL,
    api_key_sealed text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    CONSTRAINT lattice_model_providers_api_key_sealed_check CHECK ((api_key_sealed ~~ 'enc:%'::text))
);

CREATE TABLE public.lattice_outbox (
    id bigint NOT NULL,
    txid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    topic text NOT NULL,
    payload jsonb NOT NULL,
    origin_replica_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.lattice_outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.lattice_outbox_id_seq OWNED BY public.lattice_outbox.id;

CREATE TABLE public.lattice_plugin_settings (
    tenant_id text NOT NULL,
    name text NOT NULL,
    enabled boolean NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_project_bots (
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    assistant_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_project_room_messages (
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    room_id text NOT NULL,
    sequence bigint NOT NULL,
    id text NOT NULL,
    author_type text NOT NULL,
    author_id text NOT NULL,
    content text NOT NULL,
    idempotency_key text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_project_room_messages_author_type_check CHECK ((author_type = ANY (ARRAY['user'::text, 'agent'::text, 'system'::text])))
);

CREATE TABLE public.lattice_project_rooms (
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    last_sequence bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_projects (
    tenant_id text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    description text,
    metadata jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_provider_models (
    tenant_id text NOT NULL,
    provider_id text NOT NULL,
    model text NOT NULL COLLATE pg_catalog."C",
    enabled boolean DEFAULT true NOT NULL,
    available boolean DEFAULT true NOT NULL,
    discovered_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_replica_presence (
    replica_id text NOT NULL,
    version text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    store_mode text NOT NULL,
    active_runs integer NOT NULL,
    outbox_cursor text,
    outbox_lag_ms integer NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    role text DEFAULT 'all'::text NOT NULL,
    key_versions text[],
    CONSTRAINT lattice_replica_presence_active_runs_check CHECK ((active_runs >= 0)),
    CONSTRAINT lattice_replica_presence_outbox_lag_ms_check CHECK ((outbox_lag_ms >= 0)),
    CONSTRAINT lattice_replica_presence_role_check CHECK ((role = ANY (ARRAY['all'::text, 'api'::text, 'worker'::text]))),
    CONSTRAINT lattice_replica_presence_store_mode_check CHECK ((store_mode = ANY (ARRAY['memory'::text, 'postgresql'::text])))
);

CREATE TABLE public.lattice_run_events (
    tenant_id text NOT NULL,
    assistant_id text NOT NULL,
    thread_id text NOT NULL,
    message_id text NOT NULL,
    event_index integer NOT NULL,
    type text NOT NULL,
    data jsonb,
    logged_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_scheduled_tasks (
    task_id text NOT NULL,
    tenant_id text NOT NULL,
    task_type text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    execution_type text NOT NULL,
    execute_at timestamp with time zone,
    next_run_at timestamp with time zone,
    cron_expression text,
    timezone text,
    catch_up text NOT NULL,
    status text NOT NULL,
    run_count integer DEFAULT 0 NOT NULL,
    max_runs integer,
    retry_count integer DEFAULT 0 NOT NULL,
    max_retries integer DEFAULT 0 NOT NULL,
    last_run_at timestamp with time zone,
    last_error text,
    assistant_id text,
    thread_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_scheduled_tasks_catch_up_check CHECK ((catch_up = ANY (ARRAY['once'::text, 'skip'::text]))),
    CONSTRAINT lattice_scheduled_tasks_execution_type_check CHECK ((execution_type = ANY (ARRAY['once'::text, 'cron'::text]))),
    CONSTRAINT lattice_scheduled_tasks_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text, 'paused'::text, 'completed'::text, 'cancelled'::text, 'failed'::text])))
);

CREATE TABLE public.lattice_schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE public.lattice_schema_migrations IS 'Applied schema migrations of @axiom-lattice/pg-stores: TypeScript modules first, numbered .sql files from 220 on';

CREATE TABLE public.lattice_store_items (
    tenant_id text NOT NULL,
    namespace text[] NOT NULL COLLATE pg_catalog."C",
    key text NOT NULL COLLATE pg_catalog."C",
    value jsonb NOT NULL,
    ttl_minutes double precision,
    expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_store_items_namespace_check CHECK ((cardinality(namespace) > 0))
);

CREATE TABLE public.lattice_tasks (
    tenant_id text NOT NULL,
    id text NOT NULL,
    owner_type text NOT NULL,
    owner_id text NOT NULL,
    title text NOT NULL,
    description text,
    status text NOT NULL,
    priority integer NOT NULL,
    due_date timestamp with time zone,
    metadata jsonb,
    parent_id text,
    source_id text,
    context jsonb,
    require_review boolean,
    dependencies text[],
    result jsonb,
    failure_reason text,
    workspace_id text,
    project_id text,
    fencing_token bigint,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT lattice_tasks_fencing_token_check CHECK ((fencing_token >= 0)),
    CONSTRAINT lattice_tasks_id_check CHECK (((length(id) >= 1) AND (length(id) <= 128))),
    CONSTRAINT lattice_tasks_owner_type_check CHECK ((owner_type = ANY (ARRAY['user'::text, 'agent'::text]))),
    CONSTRAINT lattice_tasks_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'in_progress'::text, 'review'::text, 'failed'::text, 'interrupted'::text, 'completed'::text, 'cancelled'::text])))
);

CREATE SEQUENCE public.lattice_thread_message_queue_sequence
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.lattice_threads (
    tenant_id text NOT NULL,
    id text NOT NULL,
    assistant_id text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ttl_minutes double precision,
    expires_at timestamp with time zone,
    config jsonb
);

CREATE TABLE public.lattice_web_app_threads (
    tenant_id text NOT NULL,
    web_app_id text NOT NULL,
    thread_id text NOT NULL,
    user_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.lattice_web_apps (
    id text NOT NULL,
    tenant_id text NOT NULL,
    assistant_id text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    appearance jsonb NOT NULL,
    allowed_origins text[] DEFAULT '{}'::text[] NOT NULL,
    identity_mode text NOT NULL,
    secret_sealed text,
    previous_secret_sealed text,
    previous_valid_until timestamp with time zone,
    preview_secret_sealed text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT lattice_web_apps_identity_mode_check CHECK ((identity_mode = ANY (ARRAY['signed'::text, 'anonymous'::text]))),
    CONSTRAINT lattice_web_apps_preview_secret_sealed_check CHECK ((preview_secret_sealed ~~ 'enc:%'::text)),
    CONSTRAINT lattice_web_apps_previous_secret_sealed_check CHECK ((previous_secret_sealed ~~ 'enc:%'::text)),
    CONSTRAINT lattice_web_apps_secret_sealed_check CHECK ((secret_sealed ~~ 'enc:%'::text)),
    CONSTRAINT lattice_web_apps_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text, 'disabled'::text])))
);

ALTER TABLE ONLY public.lattice_outbox ALTER COLUMN id SET DEFAULT nextval('public.lattice_outbox_id_seq'::regclass);

ALTER TABLE ONLY public.lattice_a2a_push_configs
    ADD CONSTRAINT lattice_a2a_push_configs_pkey PRIMARY KEY (tenant_id, task_id, id);

ALTER TABLE ONLY public.lattice_api_keys
    ADD CONSTRAINT lattice_api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.lattice_api_keys
    ADD CONSTRAINT lattice_api_keys_secret_hash_key UNIQUE (secret_hash);

ALTER TABLE ONLY public.lattice_assistant_versions
    ADD CONSTRAINT lattice_assistant_versions_pkey PRIMARY KEY (tenant_id, assistant_id, version);

ALTER TABLE ONLY public.lattice_assistants
    ADD CONSTRAINT lattice_assistants_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.lattice_leases
    ADD CONSTRAINT lattice_leases_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.lattice_mcp_server_configs
    ADD CONSTRAINT lattice_mcp_server_configs_pkey PRIMARY KEY (tenant_id, key);

ALTER TABLE ONLY public.lattice_model_providers
    ADD CONSTRAINT lattice_model_providers_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.lattice_outbox
    ADD CONSTRAINT lattice_outbox_pkey PRIMARY KEY (txid, id);

ALTER TABLE ONLY public.lattice_plugin_settings
    ADD CONSTRAINT lattice_plugin_settings_pkey PRIMARY KEY (tenant_id, name);

ALTER TABLE ONLY public.lattice_project_bots
    ADD CONSTRAINT lattice_project_bots_pkey PRIMARY KEY (tenant_id, project_id, assistant_id);

ALTER TABLE ONLY public.lattice_project_room_messages
    ADD CONSTRAINT lattice_project_room_messages_pkey PRIMARY KEY (tenant_id, project_id, room_id, sequence);

ALTER TABLE ONLY public.lattice_project_rooms
    ADD CONSTRAINT lattice_project_rooms_pkey PRIMARY KEY (tenant_id, project_id, id);

ALTER TABLE ONLY public.lattice_projects
    ADD CONSTRAINT lattice_projects_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.lattice_provider_models
    ADD CONSTRAINT lattice_provider_models_pkey PRIMARY KEY (tenant_id, provider_id, model);

ALTER TABLE ONLY public.lattice_replica_presence
    ADD CONSTRAINT lattice_replica_presence_pkey PRIMARY KEY (replica_id);

ALTER TABLE ONLY public.lattice_run_events
    ADD CONSTRAINT lattice_run_events_pkey PRIMARY KEY (tenant_id, assistant_id, thread_id, message_id, event_index);

ALTER TABLE ONLY public.lattice_scheduled_tasks
    ADD CONSTRAINT lattice_scheduled_tasks_pkey PRIMARY KEY (task_id);

ALTER TABLE ONLY public.lattice_schema_migrations
    ADD CONSTRAINT lattice_schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.lattice_store_items
    ADD CONSTRAINT lattice_store_items_pkey PRIMARY KEY (tenant_id, namespace, key);

ALTER TABLE ONLY public.lattice_tasks
    ADD CONSTRAINT lattice_tasks_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.lattice_thread_message_queue
    ADD CONSTRAINT lattice_thread_message_queue_pkey PRIMARY KEY (sequence);

ALTER TABLE ONLY public.lattice_threads
    ADD CONSTRAINT lattice_threads_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY public.lattice_web_app_threads
    ADD CONSTRAINT lattice_web_app_threads_pkey PRIMARY KEY (web_app_id, thread_id);

ALTER TABLE ONLY public.lattice_web_apps
    ADD CONSTRAINT lattice_web_apps_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.lattice_web_apps
    ADD CONSTRAINT lattice_web_apps_tenant_id_id_key UNIQUE (tenant_id, id);

CREATE INDEX lattice_api_keys_page ON public.lattice_api_keys USING btree (tenant_id, created_at, id COLLATE "C");

CREATE INDEX lattice_assistants_by_page_order ON public.lattice_assistants USING btree (tenant_id, created_at, id COLLATE "C");

CREATE INDEX lattice_mcp_server_configs_by_page_order ON public.lattice_mcp_server_configs USING btree (tenant_id, created_at, key COLLATE "C");

CREATE INDEX lattice_model_providers_by_page_order ON public.lattice_model_providers USING btree (tenant_id, created_at, id COLLATE "C");

CREATE INDEX lattice_outbox_created_at ON public.lattice_outbox USING btree (created_at);

CREATE INDEX lattice_plugin_settings_by_page_order ON public.lattice_plugin_settings USING btree (tenant_id, name COLLATE "C");

CREATE INDEX lattice_project_bots_by_assistant ON public.lattice_project_bots USING btree (tenant_id, assistant_id);

CREATE INDEX lattice_project_bots_page ON public.lattice_project_bots USING btree (tenant_id, project_id, created_at, assistant_id COLLATE "C");

CREATE UNIQUE INDEX lattice_project_room_messages_idempotency ON public.lattice_project_room_messages USING btree (tenant_id, project_id, room_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);

CREATE INDEX lattice_project_rooms_page ON public.lattice_project_rooms USING btree (tenant_id, project_id, created_at, id COLLATE "C");

CREATE INDEX lattice_projects_page ON public.lattice_projects USING btree (tenant_id, created_at, id COLLATE "C");

CREATE INDEX lattice_run_events_logged_at ON public.lattice_run_events USING btree (logged_at);

CREATE INDEX lattice_scheduled_tasks_by_status ON public.lattice_scheduled_tasks USING btree (status, updated_at);

CREATE INDEX lattice_scheduled_tasks_by_tenant ON public.lattice_scheduled_tasks USING btree (tenant_id, created_at);

CREATE INDEX lattice_store_items_expiry ON public.lattice_store_items USING btree (expires_at) WHERE (expires_at IS NOT NULL);

CREATE INDEX lattice_tasks_listing ON public.lattice_tasks USING btree (tenant_id, created_at, id COLLATE "C");

CREATE INDEX lattice_tasks_owner ON public.lattice_tasks USING btree (tenant_id, owner_id, status);

CREATE INDEX lattice_tasks_parent ON public.lattice_tasks USING btree (tenant_id, parent_id) WHERE (parent_id IS NOT NULL);

CREATE INDEX lattice_tasks_project ON public.lattice_tasks USING btree (tenant_id, project_id, created_at) WHERE (project_id IS NOT NULL);

CREATE INDEX lattice_tasks_scan ON public.lattice_tasks USING btree (status, tenant_id COLLATE "C", id COLLATE "C");

CREATE INDEX lattice_thread_message_queue_claim ON public.lattice_thread_message_queue USING btree (thread_id, priority DESC, sequence) WHERE (status = 'pending'::text);

CREATE INDEX lattice_thread_message_queue_claims ON public.lattice_thread_message_queue USING btree (thread_id, lease_expires_at) WHERE (status = 'processing'::text);

CREATE INDEX lattice_thread_message_queue_finished ON public.lattice_thread_message_queue USING btree (finished_at) WHERE (status = 'completed'::text);

CREATE UNIQUE INDEX lattice_thread_message_queue_id_per_tenant ON public.lattice_thread_message_queue USING btree (id, COALESCE(tenant_id, ''::text));

CREATE INDEX lattice_thread_message_queue_run_pages ON public.lattice_thread_message_queue USING btree (thread_id, finished_at, sequence) WHERE (status = 'completed'::text);

CREATE INDEX lattice_thread_message_queue_tenant_open ON public.lattice_thread_message_queue USING btree (COALESCE(tenant_id, ''::text)) WHERE (status = ANY (ARRAY['pending'::text, 'processing'::text]));

CREATE INDEX lattice_threads_expiry ON public.lattice_threads USING btree (expires_at) WHERE (expires_at IS NOT NULL);

CREATE INDEX lattice_threads_pages ON public.lattice_threads USING btree (tenant_id, created_at DESC, id COLLATE "C" DESC);

CREATE INDEX lattice_threads_pages_by_assistant ON public.lattice_threads USING btree (tenant_id, assistant_id, created_at DESC, id COLLATE "C" DESC);

CREATE INDEX lattice_web_app_threads_page ON public.lattice_web_app_threads USING btree (web_app_id, user_id, created_at, thread_id COLLATE "C");

CREATE INDEX lattice_web_apps_page ON public.lattice_web_apps USING btree (tenant_id, created_at, id COLLATE "C");

ALTER TABLE ONLY public.lattice_assistant_versions
    ADD CONSTRAINT lattice_assistant_versions_tenant_id_assistant_id_fkey FOREIGN KEY (tenant_id, assistant_id) REFERENCES public.lattice_assistants(tenant_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.lattice_project_bots
    ADD CONSTRAINT lattice_project_bots_tenant_id_project_id_fkey FOREIGN KEY (tenant_id, project_id) REFERENCES public.lattice_projects(tenant_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.lattice_project_room_messages
    ADD CONSTRAINT lattice_project_room_messages_tenant_id_project_id_room_id_fkey FOREIGN KEY (tenant_id, project_id, room_id) REFERENCES public.lattice_project_rooms(tenant_id, project_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.lattice_project_rooms
    ADD CONSTRAINT lattice_project_rooms_tenant_id_project_id_fkey FOREIGN KEY (tenant_id, project_id) REFERENCES public.lattice_projects(tenant_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.lattice_provider_models
    ADD CONSTRAINT lattice_provider_models_tenant_id_provider_id_fkey FOREIGN KEY (tenant_id, provider_id) REFERENCES public.lattice_model_providers(tenant_id, id) ON DELETE CASCADE;

ALTER TABLE ONLY public.lattice_web_app_threads
    ADD CONSTRAINT lattice_web_app_threads_tenant_id_web_app_id_fkey FOREIGN KEY (tenant_id, web_app_id) REFERENCES public.lattice_web_apps(tenant_id, id) ON DELETE CASCADE;
