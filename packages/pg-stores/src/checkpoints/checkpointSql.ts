import { statementFence } from "../coordination/fenceSql";

// Writes to LangGraph's checkpoint tables (created by PostgresSaver.setup()) made under a lease's
// fence, each in one statement: the fence, and every row the library's put or putWrites writes in a
// transaction of its own, one statement per row (a checkpoint with the pending writes held back for
// it: what the library writes in one transaction per task and one more for the checkpoint).

const PUT_FENCE = statementFence(11);

// The pending writes stored with a checkpoint (the tasks' writes its step was made of, held back by
// the run to be stored with it) as arrays of their namespace, checkpoint, task, index, channel, type
// and bytes from parameter $13 on; those of the $20 array are replaced when already stored (the
// library does for writes to special channels alone, whose index is fixed), the rest kept. The run
// gives each key once.
const STAGED_WRITES = `
  unnest($13::text[], $14::text[], $15::text[], $16::int[], $17::text[], $18::text[], $19::bytea[], $20::boolean[])
    AS write(ns, checkpoint_id, task_id, idx, channel, type, bytes, replaces)`;

/**
 * A checkpoint, its channels' values and the pending writes held back for it: $1 thread, $2
 * namespace; the blobs as arrays of their channel $3, version $4, type $5 and bytes $6 (NULL for an
 * empty channel); the checkpoint's id $7, its parent's $8, the checkpoint $9 and its metadata $10;
 * $11, $12 the fence; the writes ($13–$20, above). Conflicts are resolved as the library resolves
 * them. Answers whether the fence held.
 */
export const PUT_CHECKPOINT = `
  WITH ${PUT_FENCE.cte},
  blobs AS (
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT $1, $2, blob.channel, blob.version, blob.type, blob.bytes
      FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[]) AS blob(channel, version, type, bytes)
     WHERE ${PUT_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
  ),
  saved AS (
    INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    SELECT $1, $2, $7, $8, $9::jsonb, $10::jsonb
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

const WRITES_FENCE = statementFence(10);

/**
 * A task's pending writes to checkpoint $3 of thread $1, namespace $2, by task $4: arrays of their
 * index $5, channel $6, type $7 and bytes $8. $9: replace writes already stored under the same
 * index (the library does for special channels, whose index is fixed), else keep them. $10, $11 the
 * fence. Answers whether the fence held.
 */
export const PUT_WRITES = `
  WITH ${WRITES_FENCE.cte},
  written AS (
    INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
    SELECT $1, $2, $3, $4, write.idx, write.channel, write.type, write.bytes
      FROM unnest($5::int[], $6::text[], $7::text[], $8::bytea[]) AS write(idx, channel, type, bytes)
     WHERE ${WRITES_FENCE.holds}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE
       SET channel = EXCLUDED.channel,
           type = EXCLUDED.type,
           blob = EXCLUDED.blob
     WHERE $9::boolean
  )
  SELECT ${WRITES_FENCE.holds} AS fence_holds`;
