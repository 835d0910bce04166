import type {
  AppendProjectRoomMessageRequest,
  Page,
  PageRequest,
  AppendedProjectRoomMessage,
  ProjectRoomMessage,
  ProjectRoomMessageStore,
  ProjectRoomScope,
  ProjectRoomStore,
} from "@axiom-lattice/protocols";
import { randomUUID } from "node:crypto";
import { pageOfSorted } from "../stores/keysetPages";
import { ROOM_MESSAGE_PAGE_SHAPE, roomMessagePageKey, validateAppendMessage, validateRoomScope } from "./roomArguments";

interface RoomHistory {
  /** Ascending by sequence. */
  messages: ProjectRoomMessage[];
  byIdempotencyKey: Map<string, ProjectRoomMessage>;
}

const historyKey = ({ tenantId, projectId, roomId }: ProjectRoomScope) => JSON.stringify([tenantId, projectId, roomId]);

/** {@link ProjectRoomMessageStore} within one process, over the rooms of `rooms`. */
export class InMemoryProjectRoomMessageStore implements ProjectRoomMessageStore {
  private readonly histories = new Map<string, RoomHistory>();

  constructor(private readonly rooms: ProjectRoomStore) {}

  async appendMessage(scope: ProjectRoomScope, request: AppendProjectRoomMessageRequest): Promise<AppendedProjectRoomMessage | null> {
    const room = validateRoomScope(scope);
    const valid = validateAppendMessage(request);
    if (!(await this.rooms.getRoom(room.tenantId, room.projectId, room.roomId))) return null;
    // From here on synchronous: racers with one idempotency key cannot both store.
    const key = historyKey(room);
    const history = this.histories.get(key) ?? { messages: [], byIdempotencyKey: new Map<string, ProjectRoomMessage>() };
    this.histories.set(key, history);
    const stored = valid.idempotencyKey === undefined ? undefined : history.byIdempotencyKey.get(valid.idempotencyKey);
    if (stored) return { message: structuredClone(stored), created: false };
    const message: ProjectRoomMessage = {
      id: randomUUID(),
      ...room,
      sequence: (history.messages.at(-1)?.sequence ?? 0) + 1,
      ...valid,
      createdAt: new Date(),
    };
    history.messages.push(message);
    if (message.idempotencyKey !== undefined) history.byIdempotencyKey.set(message.idempotencyKey, message);
    return { message: structuredClone(message), created: true };
  }

  async listMessages(scope: ProjectRoomScope, page: PageRequest): Promise<Page<ProjectRoomMessage>> {
    const room = validateRoomScope(scope);
    const messages = this.histories.get(historyKey(room))?.messages ?? [];
    const { items, nextCursor } = pageOfSorted(messages, page, ROOM_MESSAGE_PAGE_SHAPE, roomMessagePageKey);
    return { items: items.map((message) => structuredClone(message)), nextCursor };
  }

  async lastSequence(scope: ProjectRoomScope): Promise<number> {
    return this.histories.get(historyKey(validateRoomScope(scope)))?.messages.at(-1)?.sequence ?? 0;
  }
}
