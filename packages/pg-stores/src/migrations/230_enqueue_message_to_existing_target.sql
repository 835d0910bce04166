-- A run request's add judges its target too (issue 42): the read of the request's assistant and thread
-- was a round trip of its own before the add, on the path of every run. With p_require_target, the
-- add refuses (SQLSTATE LQ002) unless tenant p_tenant_id has assistant p_assistant_id, and (LQ003)
-- its thread p_thread_id of that assistant; the assistant is judged first, as the request's read
-- judged it. Then it is migration 229's add, whose function it calls.
--
-- A new overload beside migration 229's, which is kept: replicas of the release before call it with
-- ten arguments during a rolling upgrade.
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
  p_tenant_capacity integer,
  p_require_target boolean
) RETURNS SETOF lattice_thread_message_queue
LANGUAGE plpgsql VOLATILE AS $$
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
