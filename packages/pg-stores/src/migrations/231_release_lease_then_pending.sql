-- A thread-run lease holder's last look at its thread (issue 42): it released the lease, then read the
-- thread's pending messages, two round trips at the end of every tenure. One now: this function
-- releases lease p_key if p_holder holds it (as the lease store's release does), then reads the
-- thread's pending messages in claim order (as the queue store's pending read does).
--
-- Two statements, not one: in READ COMMITTED each takes its snapshot as it starts, so the read sees
-- every add committed before the release got the lease's row. An adder tries the lease only after its
-- add committed; one that found the lease still held left its message to the holder, and the holder's
-- read sees it. One statement's single snapshot, taken before its release waits for the row, would not.
CREATE FUNCTION lattice_release_lease_then_pending(
  p_key text,
  p_holder text,
  p_thread_id text,
  p_tenant_id text,
  p_assistant_id text
) RETURNS SETOF lattice_thread_message_queue
LANGUAGE plpgsql VOLATILE AS $$
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
