import { ROOM_MESSAGE_PAGE_SHAPE, roomMessagePageKey, validateAppendMessage, validateRoomScope } from "@axiom-lattice/core";
import type {
  AppendProjectRoomMessageRequest,
  AppendedProjectRoomMessage,
  Page,
  PageRequest,
  ProjectRoomAuthorType,
  ProjectRoomMessage,
  ProjectRoomMessageStore,
  ProjectRoomScope,
} from "@axiom-lattice/protocols";
import { randomUUID } from "node:crypto";
import { readPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { isUniqueViolation } from "../db/transaction";
import { GET_LAST_SEQUENCE, GET_MESSAGE_BY_IDEMPOTENCY_KEY, INSERT_MESSAGE, LIST_MESSAGES, MESSAGE_IDEMPOTENCY_INDEX } from "./roomSql";

interface MessageRow {
  tenant_id: string;
  project_id: string;
  room_id: string;
  /** bigint: pg hands it over as text. */
  sequence: string;
  id: string;
  author_type: ProjectRoomAuthorType;
  author_id: string;
  content: string;
  idempotency_key: string | null;
  created_at: Date;
}

const toMessage = (row: MessageRow): ProjectRoomMessage => ({
  id: row.id,
  tenantId: row.tenant_id,
  projectId: row.project_id,
  roomId: row.room_id,
  sequence: Number(row.sequence),
  authorType: row.author_type,
  authorId: row.author_id,
  content: row.content,
  ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
  createdAt: row.created_at,
});

/** {@link ProjectRoomMessageStore} on `lattice_project_room_messages`; every statement is scoped to one tenant's room. */
export class PostgreSQLProjectRoomMessageStore extends PgStore implements ProjectRoomMessageStore {
  async appendMessage(scope: ProjectRoomScope, request: AppendProjectRoomMessageRequest): Promise<AppendedProjectRoomMessage | null> {
    const { tenantId, projectId, roomId } = validateRoomScope(scope);
    const valid = validateAppendMessage(request);
    const room = [tenantId, projectId, roomId];
    await this.initialize();
    try {
      const [row] = (
        await this.pool.query<MessageRow>(INSERT_MESSAGE, [...room, randomUUID(), valid.authorType, valid.authorId, valid.content, valid.idempotencyKey ?? null])
      ).rows;
      return row ? { message: toMessage(row), created: true } : null;
    } catch (error) {
      if (!isUniqueViolation(error, MESSAGE_IDEMPOTENCY_INDEX)) throw error;
    }
    // The key is taken (the failed statement took no sequence): answer the message stored under it.
    const [stored] = (await this.pool.query<MessageRow>(GET_MESSAGE_BY_IDEMPOTENCY_KEY, [...room, valid.idempotencyKey])).rows;
    return stored ? { message: toMessage(stored), created: false } : null;
  }

  async listMessages(scope: ProjectRoomScope, page: PageRequest): Promise<Page<ProjectRoomMessage>> {
    const { tenantId, projectId, roomId } = validateRoomScope(scope);
    await this.initialize();
    const read = async (after: readonly (string | number)[] | null, fetch: number) =>
      (await this.pool.query<MessageRow>(LIST_MESSAGES, [tenantId, projectId, roomId, after === null ? 0 : after[0], fetch])).rows.map(toMessage);
    return readPage(page, ROOM_MESSAGE_PAGE_SHAPE, read, roomMessagePageKey, (message) => message);
  }

  async lastSequence(scope: ProjectRoomScope): Promise<number> {
    const { tenantId, projectId, roomId } = validateRoomScope(scope);
    await this.initialize();
    const [row] = (await this.pool.query<{ last_sequence: string }>(GET_LAST_SEQUENCE, [tenantId, projectId, roomId])).rows;
    return row ? Number(row.last_sequence) : 0;
  }
}
