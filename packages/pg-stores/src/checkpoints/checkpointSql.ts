import { statementFence } from "../coordination/fenceSql";

// Writes to LangGraph's checkpoint tables (created by PostgresSaver.setup()) made under a lease's
// fence, each in one statement: the fence, and every row the library's put or putWrites writes in a
// transaction of its own, one statement per row.

const PUT_FENCE = statementFence(11);

/**
 * A checkpoint and its channels' values: $1 thread, $2 namespace; the blobs as arrays of their
 * channel $3, version $4, type $5 and bytes $6 (NULL for an empty channel); the checkpoint's id $7,
 * its parent's $8, the checkpoint $9 and its metadata $10; $11, $12 the fence. Conflicts are resolved
 * as the library resolves them. Answers whether the fence held.
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
