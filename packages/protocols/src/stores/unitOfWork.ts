import type { AppendOutboxEventInput } from "./outbox";
import type { TaskStore } from "./task";

/**
 * The stores a unit of work writes through. What it writes through them commits together, or none
 * of it does: an event appended here reaches peers only with the change it announces.
 */
export interface TransactionStores {
  tasks: TaskStore;
  /** Appends on the transaction; the event's id and cursor exist only once it commits. */
  outbox: { append(input: AppendOutboxEventInput): Promise<void> };
}

/**
 * Store writes and outbox appends in one transaction, as a job queue's `add_job` joins its caller's
 * transaction. Readers never see part of a unit of work: its writes become visible all at once when
 * `fn` resolves, and never when it throws (or its connection dies). A write made inside `fn` through
 * a store outside `tx` waits for the unit of work to end: do not make one.
 */
export interface UnitOfWork {
  inTransaction<T>(fn: (tx: TransactionStores) => Promise<T>): Promise<T>;
}
