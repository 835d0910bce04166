import { afterCreation, createdMicrosColumn } from "../db/pageKeys";

// Every statement names its tenant and project: rooms are keyed by (tenant_id, project_id, id),
// messages by (tenant_id, project_id, room_id, sequence).

const ROOM_COLUMNS = "tenant_id, project_id, id, name, created_at";
const MESSAGE_COLUMNS = "tenant_id, project_id, room_id, sequence, id, author_type, author_id, content, idempotency_key, created_at";

/**
 * Inserts the room only when the project exists: no row when it does not, or when the project has a
 * room with this id already (told apart by {@link GET_PROJECT_EXISTS}).
 */
export const INSERT_ROOM = `
  INSERT INTO lattice_project_rooms (tenant_id, project_id, id, name, created_at)
  SELECT tenant_id, id, $3, $4, now()
    FROM lattice_projects
   WHERE tenant_id = $1
     AND id = $2
  ON CONFLICT (tenant_id, project_id, id) DO NOTHING
  RETURNING ${ROOM_COLUMNS}`;

export const GET_PROJECT_EXISTS = `
  SELECT 1
    FROM lattice_projects
   WHERE tenant_id = $1
     AND id = $2`;

export const GET_ROOM = `
  SELECT ${ROOM_COLUMNS}
    FROM lattice_project_rooms
   WHERE tenant_id = $1
     AND project_id = $2
     AND id = $3`;

/** A page in creation order after ($3 epoch microseconds, $4 id), $5 rows (index of migration 210). */
export const LIST_ROOMS = `
  SELECT ${ROOM_COLUMNS}, ${createdMicrosColumn("r")}
    FROM lattice_project_rooms r
   WHERE r.tenant_id = $1
     AND r.project_id = $2
     AND ${afterCreation("r", "id", 3)}
   ORDER BY r.created_at, r.id COLLATE "C"
   LIMIT $5`;

/**
 * Numbers the message from the room's counter (the row lock held to commit orders a room's messages)
 * and inserts it. No row when the room does not exist. A taken idempotency key fails the statement
 * with a unique violation of {@link MESSAGE_IDEMPOTENCY_INDEX}, which undoes the counter bump with it:
 * a retry never takes a sequence, so a room's sequences run 1, 2, 3… without a gap. (`ON CONFLICT DO
 * NOTHING` would keep the bump.) The racer that lost waited for the winner's commit on the room row,
 * and finds its message with {@link GET_MESSAGE_BY_IDEMPOTENCY_KEY}.
 */
export const INSERT_MESSAGE = `
  WITH room AS (
    UPDATE lattice_project_rooms
       SET last_sequence = last_sequence + 1
     WHERE tenant_id = $1
       AND project_id = $2
       AND id = $3
    RETURNING tenant_id, project_id, id, last_sequence
  )
  INSERT INTO lattice_project_room_messages (${MESSAGE_COLUMNS})
  SELECT room.tenant_id, room.project_id, room.id, room.last_sequence, $4, $5, $6, $7, $8, now()
    FROM room
  RETURNING ${MESSAGE_COLUMNS}`;

/** The unique index of a room's idempotency keys (migration 194). */
export const MESSAGE_IDEMPOTENCY_INDEX = "lattice_project_room_messages_idempotency";

export const GET_MESSAGE_BY_IDEMPOTENCY_KEY = `
  SELECT ${MESSAGE_COLUMNS}
    FROM lattice_project_room_messages
   WHERE tenant_id = $1
     AND project_id = $2
     AND room_id = $3
     AND idempotency_key = $4`;

/** The room's counter: the sequence of its latest committed message (the bump commits with it). */
export const GET_LAST_SEQUENCE = `
  SELECT last_sequence
    FROM lattice_project_rooms
   WHERE tenant_id = $1
     AND project_id = $2
     AND id = $3`;

/** A page: the messages after sequence $4, ascending (the primary key's order), $5 rows. */
export const LIST_MESSAGES = `
  SELECT ${MESSAGE_COLUMNS}
    FROM lattice_project_room_messages
   WHERE tenant_id = $1
     AND project_id = $2
     AND room_id = $3
     AND sequence > $4
   ORDER BY sequence
   LIMIT $5`;
