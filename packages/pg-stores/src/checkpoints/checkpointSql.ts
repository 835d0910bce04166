import { statementFence } from "../coordination/fenceSql";

// Writes to LangGraph's checkpoint tables (created by PostgresSaver.setup()) made under a lease's
// fence, each in one statement: the fence, and every row the library's put or putWrites writes in a
// transaction of its own, one statement per row (checkpoints with the pending writes held back for
// them: what the library writes in one transaction per task and one more per checkpoint).

const PUT_FENCE = statementFence(12);

// The pending writes stored with checkpoints (the tasks' writes of their steps, held back by the run
// to be stored with them) as arrays of their namespace, checkpoint, task, index, channel, type and
// bytes from parameter $14 on; those of the $21 array are replaced when already stored (the library
// does for writes to special channels alone, whose index is fixed), the rest kept. The run gives
// each key once.
const STAGED_WRITES = `
  unnest($14::text[], $15::text[], $16::text[], $17::int[], $18::text[], $19::text[], $20::bytea[], $21::boolean[])
    AS write(ns, checkpoint_id, task_id, idx, channel, type, bytes, replaces)`;

/**
 * Checkpoints of thread $1 (one, a run's input with the first step's, or none: a task's writes
 * alone), their channels' values and the pending writes held back for them: the blobs as arrays of
 * their namespace $2, channel $3, version $4, type $5 and bytes $6 (NULL for an empty channel); the
 * checkpoints as arrays of their namespace $7, id $8, parent's id $9, checkpoint $10 and metadata
 * $11; $12, $13 the fence; the writes ($14–$21, above). Conflicts are resolved as the library
 * resolves them. Answers whether the fence held.
 */
export const PUT_CHECKPOINTS = `
  WITH ${PUT_FENCE.cte},
  blobs AS (
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT $1, blob.ns, blob.channel, blob.version, blob.type, blob.bytes
      FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[]) AS blob(ns, channel, version, type, bytes)
     WHERE ${PUT_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
  ),
  saved AS (
    INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    SELECT $1, saved.ns, saved.id, saved.parent_id, saved.checkpoint, saved.metadata
      FROM unnest($7::text[], $8::text[], $9::text[], $10::jsonb[], $11::jsonb[]) AS saved(ns, id, parent_id, checkpoint, metadata)
     WHERE ${PUT_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
       SET checkpoint = EXCLUDED.checkpoint,
           metadata = EXCLUDED.metadata
  ),
  replaced_writes AS (
    INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
    SELECT $1, write.ns, write.checkpoint_id, write.task_id, write.idx, write.channel, write.type, write.bytes
      FROM ${STAGED_WRITES}
     WHERE write.replaces
       AND ${PUT_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE
       SET channel = EXCLUDED.channel,
           type = EXCLUDED.type,
           blob = EXCLUDED.blob
  ),
  kept_writes AS (
    INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
    SELECT $1, write.ns, write.checkpoint_id, write.task_id, write.idx, write.channel, write.type, write.bytes
      FROM ${STAGED_WRITES}
     WHERE NOT write.replaces
       AND ${PUT_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING
  )
  SELECT ${PUT_FENCE.holds} AS fence_holds`;
