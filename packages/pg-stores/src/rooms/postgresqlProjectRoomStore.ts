import { RecordExistsError, requireProjectId, requireRoomId, requireTenantId, validateCreateRoom } from "@axiom-lattice/core";
import type { CreateProjectRoomRequest, Page, PageRequest, ProjectRoom, ProjectRoomStore } from "@axiom-lattice/protocols";
import { readCreationPage } from "../db/pageKeys";
import { PgStore } from "../db/pgStore";
import { GET_PROJECT_EXISTS, GET_ROOM, INSERT_ROOM, LIST_ROOMS } from "./roomSql";

interface RoomRow {
  tenant_id: string;
  project_id: string;
  id: string;
  name: string;
  created_at: Date;
}

const toRoom = (row: RoomRow): ProjectRoom => ({ id: row.id, tenantId: row.tenant_id, projectId: row.project_id, name: row.name, createdAt: row.created_at });

/** {@link ProjectRoomStore} on `lattice_project_rooms`; every statement is scoped to one tenant's project. */
export class PostgreSQLProjectRoomStore extends PgStore implements ProjectRoomStore {
  async createRoom(tenantId: string, projectId: string, request: CreateProjectRoomRequest): Promise<ProjectRoom | null> {
    const key = this.projectKey(tenantId, projectId);
    const valid = validateCreateRoom(request);
    await this.initialize();
    const [row] = (await this.pool.query<RoomRow>(INSERT_ROOM, [...key, valid.id, valid.name])).rows;
    if (row) return toRoom(row);
    if ((await this.pool.query(GET_PROJECT_EXISTS, key)).rowCount === 0) return null;
    throw new RecordExistsError("room", key[0], valid.id);
  }

  async getRoom(tenantId: string, projectId: string, roomId: string): Promise<ProjectRoom | null> {
    const params = [...this.projectKey(tenantId, projectId), requireRoomId(roomId)];
    await this.initialize();
    const [row] = (await this.pool.query<RoomRow>(GET_ROOM, params)).rows;
    return row ? toRoom(row) : null;
  }

  async listRooms(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectRoom>> {
    const key = this.projectKey(tenantId, projectId);
    await this.initialize();
    const read = async (after: (string | null)[], fetch: number) => (await this.pool.query<RoomRow & { created_us: string }>(LIST_ROOMS, [...key, ...after, fetch])).rows;
    return readCreationPage(page, read, (row) => row.id, toRoom);
  }

  private projectKey(tenantId: string, projectId: string): string[] {
    return [requireTenantId(tenantId), requireProjectId(projectId)];
  }
}
