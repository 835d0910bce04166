import type { TaskItem, TaskMutationSnapshot, TaskStatus } from "@axiom-lattice/protocols";
import { StaleFencingTokenError } from "./staleFencingTokenError";
import type { TaskFields } from "./taskArguments";

// How a write changes a task, shared by every TaskStore so they decide alike: each store reads the
// current task (the PostgreSQL one under a row lock), plans the write here, then stores the plan.

/** What a write expects of the task it changes. */
export type TaskGuard = (task: TaskItem) => boolean;

export const anyTask: TaskGuard = () => true;

export const statusIn =
  (statuses: readonly TaskStatus[]): TaskGuard =>
  (task) =>
    statuses.includes(task.status);

export const matchesSnapshot =
  (snapshot: TaskMutationSnapshot): TaskGuard =>
  (task) =>
    task.status === snapshot.status && task.updatedAt.getTime() === snapshot.updatedAt.getTime();

/**
 * The task after the write (its `updatedAt` is the store's to advance), or `null` when `guard`
 * refuses it. A stale fencing token is refused before the guard is asked: a writer that lost its
 * lease must learn that, whatever the task's state. Tokens compare as integers, never as text.
 */
export function planTaskWrite(tenantId: string, current: TaskItem, guard: TaskGuard, update: Partial<TaskFields>, fencingToken: string | undefined): TaskItem | null {
  if (fencingToken !== undefined && current.fencingToken !== undefined && BigInt(fencingToken) < BigInt(current.fencingToken)) {
    throw new StaleFencingTokenError(tenantId, current.id, fencingToken, current.fencingToken);
  }
  if (!guard(current)) return null;
  return { ...current, ...update, ...(fencingToken === undefined ? {} : { fencingToken }) };
}

/**
 * The `updatedAt` of a write after `previous`: now, but at least a millisecond later, so each write
 * is a distinct version even within one millisecond or under a clock step back. Milliseconds, not
 * microseconds: a `Date` carries no finer time, and a snapshot must name exactly one version.
 */
export function nextUpdatedAt(previous: Date, now: Date = new Date()): Date {
  return new Date(Math.max(now.getTime(), previous.getTime() + 1));
}
