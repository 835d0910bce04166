import type { CreateProjectRoomRequest, Page, PageRequest, ProjectRoom, ProjectRoomStore, ProjectStore } from "@axiom-lattice/protocols";
import { requireProjectId } from "../projects/projectArguments";
import { CreationClock, pageByCreation } from "../stores/creationOrder";
import { RecordExistsError } from "../stores/recordExistsError";
import { requireTenantId } from "../stores/storeArguments";
import { requireRoomId, validateCreateRoom } from "./roomArguments";

/** Rooms by tenant, project and id: no tenant can reach another's, whatever ids they share. */
const roomKey = (tenantId: string, projectId: string) => JSON.stringify([tenantId, projectId]);

/** {@link ProjectRoomStore} within one process, over the projects of `projects`. */
export class InMemoryProjectRoomStore implements ProjectRoomStore {
  /** Per tenant and project, rooms in creation order. */
  private readonly rooms = new Map<string, Map<string, ProjectRoom>>();
  private readonly clock = new CreationClock();

  constructor(private readonly projects: ProjectStore) {}

  async createRoom(tenantId: string, projectId: string, request: CreateProjectRoomRequest): Promise<ProjectRoom | null> {
    const tenant = requireTenantId(tenantId);
    const project = requireProjectId(projectId);
    const valid = validateCreateRoom(request);
    if (!(await this.projects.getProject(tenant, project))) return null;
    // From here on synchronous: racers on one id cannot both pass the check.
    const key = roomKey(tenant, project);
    const rooms = this.rooms.get(key) ?? new Map<string, ProjectRoom>();
    if (rooms.has(valid.id)) throw new RecordExistsError("room", tenant, valid.id);
    const room: ProjectRoom = { id: valid.id, tenantId: tenant, projectId: project, name: valid.name, createdAt: this.clock.now() };
    rooms.set(room.id, room);
    this.rooms.set(key, rooms);
    return structuredClone(room);
  }

  async getRoom(tenantId: string, projectId: string, roomId: string): Promise<ProjectRoom | null> {
    const key = roomKey(requireTenantId(tenantId), requireProjectId(projectId));
    const id = requireRoomId(roomId);
    const room = this.rooms.get(key)?.get(id);
    return room ? structuredClone(room) : null;
  }

  async listRooms(tenantId: string, projectId: string, page: PageRequest): Promise<Page<ProjectRoom>> {
    const rooms = this.rooms.get(roomKey(requireTenantId(tenantId), requireProjectId(projectId)))?.values() ?? [];
    return pageByCreation([...rooms], page, (room) => room.id);
  }
}
