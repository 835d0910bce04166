import type { TaskItem } from "@axiom-lattice/protocols";
import type { PageKey } from "../stores/keysetPages";

/**
 * Where a task sits in every TaskStore's list order: its creation in epoch microseconds, then its id.
 * A task's `createdAt` is stamped to the millisecond (PostgreSQL too, migration 191), so the `Date`
 * holds it exactly and the key names the stored time.
 */
export const taskPageKey = (task: Pick<TaskItem, "createdAt" | "id">): PageKey => [task.createdAt.getTime() * 1_000, task.id];
