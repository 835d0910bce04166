-- Adds a message to a thread's queue in one round trip (issue 42: an enqueue was BEGIN, the thread's
-- lock, the insert and COMMIT, four round trips on the hot path of every run). As graphile-worker's
-- add_job, it is a function: a VOLATILE function takes a fresh snapshot per statement, so the count
-- after each advisory lock sees every add committed before the lock was granted, which one plain
-- statement (a single snapshot, taken before the lock) could not.
--
-- p_tenant_capacity: the tenant's bound on pending plus processing messages, or NULL for none; at it,
-- raises SQLSTATE LQ001 and writes nothing. The tenant's lock is taken before the thread's, and only
-- by adds with a bound: no two adds wait for each other in a cycle.
-- p_capacity: the thread's bound (the smaller of the store's and the add's); at it, no row.
-- p_at_head: ahead of every pending row, with at least the highest pending priority.
-- p_delay_ms: 0 claimable at once, else claimable that many milliseconds from now.
-- The lock spaces (198 tenant, 186 thread) are the ones the store's other statements take.
CREATE FUNCTION lattice_enqueue_message(
  p_thread_id text,
  p_tenant_id text,
  p_assistant_id text,
  p_id text,
  p_content jsonb,
  p_priority integer,
  p_capacity integer,
  p_at_head boolean,
  p_delay_ms integer,
  p_tenant_capacity integer
) RETURNS SETOF lattice_thread_message_queue
LANGUAGE plpgsql VOLATILE AS $$
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
