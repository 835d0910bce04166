import { type Logger, type TaskLifecycleNotifier, readAllPages } from "@axiom-lattice/core";
import type { ProjectRoomStore, TaskLifecycleEvent } from "@axiom-lattice/protocols";
import { toTaskLifecycleView } from "../tasks/taskViews";
import type { ProjectRoomEventBroker } from "./projectRoomEventBroker";

/** The event type a task's status change publishes into the rooms of its project. */
export const TASK_STATUS_EVENT = "task.status";

/**
 * One fact per room: a task version (its `updatedAt` advances on every write) in one room. Every
 * replica hears the change (its own, or a peer's through the outbox) and publishes it; the key lets
 * each subscriber receive it once.
 */
const taskStatusSourceKey = (event: TaskLifecycleEvent, roomId: string) =>
  JSON.stringify(["task-status", event.tenantId, event.projectId, roomId, event.taskId, event.updatedAt]);

/**
 * Publishes each status change of a project's task into every room of the project, so a room shows
 * its tasks moving. Returns the function that stops it.
 */
export function publishTaskEventsIntoRooms(deps: {
  lifecycle: TaskLifecycleNotifier;
  rooms: ProjectRoomStore;
  broker: ProjectRoomEventBroker;
  logger: Logger;
}): () => void {
  const { lifecycle, rooms, broker, logger } = deps;
  return lifecycle.subscribe(async (event) => {
    const { tenantId, projectId } = event;
    if (projectId === undefined) return;
    const data = toTaskLifecycleView(event);
    try {
      for (const room of await readAllPages((page) => rooms.listRooms(tenantId, projectId, page))) {
        broker.publish({ tenantId, projectId, roomId: room.id }, { type: TASK_STATUS_EVENT, data }, taskStatusSourceKey(event, room.id));
      }
    } catch (error) {
      // Best-effort like every room event: the task's state stays readable over REST.
      logger.warn({ err: error, taskId: event.taskId }, "task status not published into its project's rooms");
    }
  });
}
