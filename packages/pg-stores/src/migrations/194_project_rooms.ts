import type { Migration } from "./migration";

// Rooms of projects and their messages, keyed by tenant and project like every record. A room goes
// with its project, messages with their room. last_sequence numbers the room's messages: bumping it
// locks the room row until the message commits, so sequence order is commit order within a room and a
// reader paging by sequence never skips a message that commits late. The idempotency key is unique
// within a room.
export const projectRoomsMigration: Migration = {
  version: 194,
  name: "lattice_project_rooms",
  sql: `
    CREATE TABLE lattice_project_rooms (
      tenant_id     text        NOT NULL,
      project_id    text        NOT NULL,
      id            text        NOT NULL,
      name          text        NOT NULL,
      last_sequence bigint      NOT NULL DEFAULT 0,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, project_id, id),
      FOREIGN KEY (tenant_id, project_id) REFERENCES lattice_projects (tenant_id, id) ON DELETE CASCADE
    );

    CREATE INDEX lattice_project_rooms_by_creation ON lattice_project_rooms (tenant_id, project_id, created_at);

    CREATE TABLE lattice_project_room_messages (
      tenant_id       text        NOT NULL,
      project_id      text        NOT NULL,
      room_id         text        NOT NULL,
      sequence        bigint      NOT NULL,
      id              text        NOT NULL,
      author_type     text        NOT NULL CHECK (author_type IN ('user', 'agent', 'system')),
      author_id       text        NOT NULL,
      content         text        NOT NULL,
      idempotency_key text,
      created_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, project_id, room_id, sequence),
      FOREIGN KEY (tenant_id, project_id, room_id) REFERENCES lattice_project_rooms (tenant_id, project_id, id) ON DELETE CASCADE
    );

    CREATE UNIQUE INDEX lattice_project_room_messages_idempotency
      ON lattice_project_room_messages (tenant_id, project_id, room_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
  `,
};
